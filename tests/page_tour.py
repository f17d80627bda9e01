"""What the browser checks share: the watch on a page's requests and errors, the colour
scheme, axe, and the tour of every page (tests/test_browser.py).

The tour runs in a process of its own, `python tests/page_tour.py SITE_DIR RESULT.json`, started
by conftest.py as soon as the site is built: it takes minutes (axe on every page, twice for the
colours), and so runs while the snippets and the other tests do. The tests read its result.
"""

import contextlib
import functools
import json
import sys
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path

import sitekit
import support
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect
from sitekit import MERMAID_DRAWN

DESKTOP = {"width": 1280, "height": 800}
# A laptop's first screen: the tour's window, in which every scenario page must show its fix.
LAPTOP = {"width": 1366, "height": 900}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
# What axe must not find; moderate and minor findings are not failures.
BLOCKING = ("serious", "critical")
# axe over the whole page, started from a timer so that evaluate() returns at once and two tabs
# run it side by side; the results are awaited later from window.__axe. Given rule ids, only
# those rules run.
AXE_RUN = """(rules) => {
  const options = {resultTypes: ["violations"]};
  if (rules) options.runOnly = {type: "rule", values: rules};
  window.__axe = new Promise((r) => setTimeout(r)).then(() => axe.run(document, options));
}"""
# The rules a run checked, whatever their result.
AXE_RAN = """window.__axe.then((r) =>
  [r.passes, r.violations, r.incomplete, r.inapplicable].flat().map((rule) => rule.id))"""
# The rules that read colours (axe's category "cat.color": color-contrast, link-in-text-block).
# The colour scheme changes nothing but colours (Material's palette and a11y.css set CSS colour
# variables under [data-md-color-scheme]), so only these can find something in one scheme and
# not in the other. Checked: all of axe in both schemes on every page finds the same for every
# other rule, but for the palette toggle, whose label for the other scheme is the one shown;
# the full run alternates between the schemes from page to page, so both labels get it.
AXE_COLOUR_RULES = '() => axe.getRules(["cat.color"]).map((rule) => rule.ruleId)'

# What decides a code token's contrast: its colour, font and the background behind it. Three
# in four elements of the site are highlighted code tokens, a few looks repeated thousands of
# times, and axe's colour rules cost about a millisecond an element. Before each axe run, every
# token whose look an earlier token of the page already has is hidden (visibility: layout and
# every other element stay as they are, and axe skips hidden text): each look is still checked
# on every page that has it. Called with false, it shows them all again.
ONE_TOKEN_A_LOOK = r"""(hide) => {
  for (const el of document.querySelectorAll("[data-axe-same-look]")) {
    el.style.visibility = "";
    delete el.dataset.axeSameLook;
  }
  if (!hide) return 0;
  const behind = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const colour = getComputedStyle(e).backgroundColor;
      if (colour !== "rgba(0, 0, 0, 0)" && colour !== "transparent") return colour;
    }
    return "";
  };
  const seen = new Set();
  for (const el of document.querySelectorAll(".highlight code span")) {
    if (el.firstElementChild) continue;
    // axe reads no colour of punctuation: a token without a letter or digit cannot stand for
    // the look of one with them, so it stands for its look only among such tokens (its own
    // look, with a symbol such as "=" that axe may read, is still checked once).
    const words = /[\p{L}\p{N}]/u.test(el.textContent);
    const s = getComputedStyle(el);
    const look = [words, s.color, s.fontSize, s.fontWeight, s.fontStyle, s.textShadow,
      s.opacity, behind(el)].join("|");
    if (!seen.has(look)) seen.add(look);
    else {
      el.dataset.axeSameLook = "";
      el.style.visibility = "hidden";
    }
  }
  return seen.size;
}"""

# Visible as Playwright's is_visible() has it: a box with an area, and not visibility: hidden.
VISIBLE_HTML = """(elements) => [elements.length, elements
  .filter((e) => {
    const box = e.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && getComputedStyle(e).visibility === "visible";
  })
  .map((e) => e.outerHTML.slice(0, 120))]"""
# The costs page's plot, drawn for each colour scheme (snippets/costs/measure_costs.py), by the
# end of the address Material shows it under.
COSTS_PLOTS = {"light": "memory.png#only-light", "dark": "memory-dark.png#only-dark"}

# The first code block of the article: its code, where it lies, its title, its highlighted
# lines, and the tags between the h1 and it.
FIRST_BLOCK = """() => {
  const block = document.querySelector("article div.highlight");
  if (!block) return null;
  const box = block.getBoundingClientRect();
  const before = [];
  for (let e = document.querySelector("article h1"); e && e !== block; e = e.nextElementSibling)
    before.push(e.tagName);
  return {
    code: block.querySelector("code").textContent,
    title: block.querySelector(".filename")?.textContent ?? "",
    highlighted: block.querySelectorAll(".hll").length,
    before: before.join(" "),
    top: box.top, bottom: box.bottom, left: box.left, right: box.right,
    headerBottom: document.querySelector(".md-header").getBoundingClientRect().bottom,
    width: innerWidth, height: innerHeight,
  };
}"""

# Material's search widget says this until its worker has loaded and indexed the site.
SEARCH_READY = """
  document.querySelector(".md-search-result__meta").textContent.trim() !== "Initializing search"
"""


# A CSS colour (a custom property such as var(--bt-fix)) as getComputedStyle writes colours,
# for the checks below to compare with; the first statement of their scripts.
COLOR_OF = """const colorOf = (value) => {
  const probe = document.createElement("span");
  probe.style.color = value;
  document.body.append(probe);
  const color = getComputedStyle(probe).color;
  probe.remove();
  return color;
};
"""


# On the page as drawn: which wrong-fix sections, Raises and Output fences do not look like
# what they are (overrides/hooks/fix_styles.py marks them, docs/stylesheets/extra.css draws).
MISLEADING = (
    "() => {\n"
    + COLOR_OF
    + """  const danger = colorOf("var(--bt-danger)");
  const style = (e) => getComputedStyle(e);
  const headings = [...document.querySelectorAll(".md-content :is(h2, h3, h4)[id]")]
    .filter((h) => /^wrong-fix(-|$)/.test(h.id));
  const wrong = headings.filter((h) => {
    const box = h.parentElement;
    const warning = box.querySelector(":scope > .bt-wrong-fix__warning");
    return !(box.matches("section.bt-wrong-fix") && style(box).borderLeftStyle === "dashed"
      && style(box).borderLeftColor === danger && warning && warning.checkVisibility()
      && style(warning).color === danger);
  }).map((h) => "#" + h.id);
  const fences = (word) => [...document.querySelectorAll(".md-content .highlight > .filename")]
    .filter((t) => t.textContent.trim().startsWith(word)).map((t) => t.parentElement);
  const raises = fences("Raises").filter((f) => style(f).borderLeftColor !== danger)
    .map((f) => "Raises: " + f.textContent.trim().slice(0, 60));
  const outputs = fences("Output").filter((f) => style(f).borderLeftColor === danger)
    .map((f) => "Output: " + f.textContent.trim().slice(0, 60));
  return [headings.length, fences("Raises").length, [...wrong, ...raises, ...outputs]];
}"""
)


@dataclass
class Site:
    url: str
    pages: list[str]


@dataclass
class Watch:
    """Everything a context's pages and workers do that a reader would call a problem:
    console errors, uncaught exceptions, failed or 4xx/5xx requests, requests elsewhere."""

    origin: str
    where: str = "(no page yet)"
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)

    def attach(self, context):
        context.on("request", self._request)
        context.on("requestfailed", self._failed)
        context.on("response", self._response)
        context.on("console", self._console)
        context.on("weberror", lambda e: self.errors.append(f"{self.where}: uncaught {e.error}"))
        return self

    def _request(self, request):
        self.requests.append(request.url)
        if not request.url.startswith((self.origin + "/", "data:", "blob:")):
            self.foreign.append(f"{self.where}: {request.method} {request.url}")

    def _failed(self, request):
        self.failed.append(f"{self.where}: {request.url} ({request.failure})")

    def _response(self, response):
        if response.status >= 400:
            self.failed.append(f"{self.where}: {response.url} (HTTP {response.status})")

    def _console(self, message):
        if message.type == "error":
            self.errors.append(f"{self.where}: console error: {message.text}")


def new_page(browser, site, real_search: int | None = 1, **options):
    """A tab in a context of its own, watched. Material's search worker fetches the whole
    site's index and builds it anew on every page load, a core-second each here: after the
    first `real_search` loads (None: all), the tab's worker gets the index cut to its first
    page, from the same address and in the same format (a wrong address still fails). The
    search tests search the real index."""
    context = browser.new_context(**options)
    watch = Watch(site.url).attach(context)
    if real_search is not None:
        address, left = f"{site.url}/search/search_index.json", [real_search]
        small = _small_index(address)

        def index(route):
            # A test may close its tab while the worker's fetch is on its way.
            with contextlib.suppress(PlaywrightError):
                if left[0] > 0:
                    left[0] -= 1
                    route.continue_()
                else:
                    route.fulfill(status=200, content_type="application/json", body=small)

        context.route(address, index)
    return context.new_page(), watch


@functools.cache
def _small_index(address: str) -> str:
    """The site's search index cut to its first page."""
    with urllib.request.urlopen(address) as response:
        real = json.load(response)
    return json.dumps({**real, "docs": real["docs"][:1]})


def goto(page, watch, site, url):
    watch.where = url
    page.goto(site.url + url)
    # Diagrams are rendered by script after load; wait so layout and axe see the final page.
    page.wait_for_function(MERMAID_DRAWN)


SCHEMES = {"default": "light", "slate": "dark"}


def on_paper(page) -> dict:
    """What the page Chromium prints to the PDF shows on screen and in print media: its copy
    and download buttons (each looked at in one call), and which of the costs plots shows on
    paper in each colour scheme. Leaves the page in print media."""
    buttons = page.locator("button, clipboard-copy, a.md-content__button")
    plots = page.locator(".md-content img[src*='memory']")
    count, on_screen = buttons.evaluate_all(VISIBLE_HTML)
    page.emulate_media(media="print")
    count_printed, printed = buttons.evaluate_all(VISIBLE_HTML)
    shown = {}
    for scheme, name in SCHEMES.items():
        page.evaluate(f"document.body.setAttribute('data-md-color-scheme', '{scheme}')")
        shown[name] = [
            p.get_attribute("src").rsplit("/", 1)[-1] for p in plots.all() if p.is_visible()
        ]
    return {
        "buttons": count,
        "buttons_on_screen": len(on_screen),
        "buttons_printed": count_printed,
        "printed": printed,
        "plots": plots.count(),
        "plots_printed": shown,
    }


def scheme_of(page) -> str:
    return SCHEMES[page.locator("body").get_attribute("data-md-color-scheme")]


def toggle_scheme(page):
    """Click the header's palette toggle, as a reader does; returns the new scheme."""
    other = "dark" if scheme_of(page) == "light" else "light"
    page.locator(f"label[title='Switch to {other} mode']").click()
    expect(page.locator("body")).to_have_attribute(
        "data-md-color-scheme", next(k for k, v in SCHEMES.items() if v == other)
    )
    return other


def violations_of(page, url) -> list[str]:
    found = []
    for v in page.evaluate("window.__axe.then(r => r.violations)"):
        if v["impact"] in BLOCKING:
            nodes = v["nodes"]
            targets = ", ".join(" ".join(n["target"]) for n in nodes[:3])
            checks = [c["message"] for c in nodes[0]["any"] + nodes[0]["all"] + nodes[0]["none"]]
            found.append(
                f"{url} ({scheme_of(page)}): {v['id']} ({v['impact']}, {len(nodes)} elements): "
                f"{v['help']}: {targets}; first: {'; '.join(checks)}"
            )
    return found


def sideways(page, url) -> list[str]:
    """Whether the page scrolls sideways in a phone-wide window."""
    window = page.viewport_size
    page.set_viewport_size(PHONE["viewport"])
    width, client, scroll = page.evaluate(
        "[innerWidth, document.documentElement.clientWidth, document.documentElement.scrollWidth]"
    )
    page.set_viewport_size(window)
    if width != PHONE["viewport"]["width"] or scroll > min(width, client):
        return [f"{url}: {scroll} px of content in a {width} px wide window"]
    return []


@dataclass
class Tour:
    """Every nav page: axe in both colour schemes on a desktop, how wrong fixes, Raises and
    Output fences look in both, and the width on a phone."""

    errors: list[str]  # console errors, uncaught exceptions, failed requests
    requests: list[str]
    foreign: list[str]  # requests to another origin
    violations: dict[str, list[str]]
    overflow: list[str]
    colour_rules: list[str]
    full_runs: dict[str, int]  # pages that had all of axe's rules, per scheme
    misleading: list[str]  # a wrong fix, a Raises or an Output that does not look like one
    wrong_fix_sections: int
    raises_fences: int
    first_blocks: dict  # per scenario page, FIRST_BLOCK as the page opened on a laptop


def run_tour(browser, site: Site) -> Tour:
    """axe takes a second or more a page, so two desktop tabs (two renderer processes) check two
    pages side by side: each runs all of axe's rules, switches the colour scheme with the
    toggle and runs the rules that read colours again. The switch is remembered, so a tab's next
    page opens in the scheme it ended with: the full run alternates between the schemes.
    Then the tab is narrowed to a phone's 390 px: same CSS, without loading every page again
    (tests/test_browser.py's drawer test emulates a phone in full)."""
    tabs = [new_page(browser, site, viewport=LAPTOP) for _ in range(2)]
    axe_source = Axe().axe_script
    violations, overflow, colour_rules = {"light": [], "dark": []}, [], None
    full_runs = {"light": 0, "dark": 0}
    misleading, counts, first_blocks = [], [0, 0], {}

    def look(page, url):
        sections, raises, wrong = page.evaluate(MISLEADING)
        misleading.extend(f"{url} ({scheme_of(page)}): {w}" for w in wrong)
        return sections, raises

    for batch in (site.pages[i : i + len(tabs)] for i in range(0, len(site.pages), len(tabs))):
        pairs = list(zip(batch, tabs, strict=False))
        for url, (page, watch) in pairs:
            goto(page, watch, site, url)
            if url.startswith("/scenarios/") and url != "/scenarios/":
                # The first screen, before anything scrolls it (axe does).
                first_blocks[url] = page.evaluate(FIRST_BLOCK)
            page.evaluate(axe_source)
            page.evaluate(ONE_TOKEN_A_LOOK, True)
            page.evaluate(AXE_RUN, None)
        for url, (page, _) in pairs:
            # Wait for axe's result first: until axe is done the tab's main thread is busy, and
            # reading the scheme could time out on a loaded machine.
            found = violations_of(page, url)
            page.evaluate(ONE_TOKEN_A_LOOK, False)
            violations[scheme_of(page)] += found
            full_runs[scheme_of(page)] += 1
            counts = [a + b for a, b in zip(counts, look(page, url), strict=True)]
            if colour_rules is None:
                # Those of the full run's rules that read colours: never one it did not run.
                ran = page.evaluate(AXE_RAN)
                colour_rules = [r for r in page.evaluate(AXE_COLOUR_RULES) if r in ran]
            # Colours must be final when axe measures them, not halfway through a transition.
            page.add_style_tag(content="*, ::before, ::after { transition: none !important }")
            toggle_scheme(page)
            # The other scheme's colours may group the tokens otherwise.
            page.evaluate(ONE_TOKEN_A_LOOK, True)
            page.evaluate(AXE_RUN, colour_rules)
        for url, (page, _) in pairs:
            found = violations_of(page, url)
            page.evaluate(ONE_TOKEN_A_LOOK, False)
            violations[scheme_of(page)] += found
            look(page, url)
            overflow += sideways(page, url)
            # Leave only once the search index is in, so no request is cut off by leaving.
            page.wait_for_function(SEARCH_READY)
    for page, _ in tabs:
        page.context.close()
    watches = [watch for _, watch in tabs]
    return Tour(
        errors=[p for w in watches for p in w.errors + w.failed],
        requests=[r for w in watches for r in w.requests],
        foreign=[r for w in watches for r in w.foreign],
        violations=violations,
        overflow=overflow,
        colour_rules=colour_rules,
        full_runs=full_runs,
        misleading=misleading,
        wrong_fix_sections=counts[0],
        raises_fences=counts[1],
        first_blocks=first_blocks,
    )


def main():
    """Tour the built site SITE_DIR (every nav page), writing the Tour as JSON to RESULT."""
    site_dir, result = Path(sys.argv[1]), Path(sys.argv[2])
    pages = [sitekit.url_of(src) for _, src in sitekit.nav_pages(support.config()["nav"])]
    with sitekit.serve(site_dir) as url, sitekit.browser() as chromium:
        found = run_tour(chromium, Site(url, pages))
    result.write_text(json.dumps(asdict(found)))


def load(result: Path) -> Tour:
    return Tour(**json.loads(result.read_text()))


if __name__ == "__main__":
    main()
