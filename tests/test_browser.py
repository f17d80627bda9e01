"""The built site in a real browser: it works, it is accessible, and it talks to no one else.

Headless Chromium, driven by Playwright, against a fresh `mkdocs build` served from a thread on
127.0.0.1 (tools/sitekit.py). axe-core (from axe-playwright-python) checks every page in both
colour schemes. `make screenshots` (scripts/screenshots.py) takes the pictures CI keeps.
"""

import re
import urllib.parse
from dataclasses import dataclass, field

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect
from sitekit import MERMAID_DRAWN
from support import ROOT, nav_pages

# Checked once for the whole session by conftest.py, before any test runs.
REQUIRES = ("chromium",)
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
SCENARIO = "/scenarios/gan/"
# What axe must not find; moderate and minor findings are not failures.
BLOCKING = ("serious", "critical")
# axe over the whole page, started from a timer so that evaluate() returns at once and two tabs
# run it side by side; the results are awaited later from window.__axe.
AXE_RUN = """() => {
  const options = {resultTypes: ["violations"]};
  window.__axe = new Promise((r) => setTimeout(r)).then(() => axe.run(document, options));
}"""
# Material's search widget says this until its worker has loaded and indexed the site.
SEARCH_READY = """
  document.querySelector(".md-search-result__meta").textContent.trim() !== "Initializing search"
"""


@dataclass
class Site:
    url: str
    pages: list[str]


@pytest.fixture(scope="module")
def site(built_site, served_site) -> Site:
    return Site(served_site, list(nav_pages(built_site)))


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


def _new_page(browser, site, **options):
    context = browser.new_context(**options)
    watch = Watch(site.url).attach(context)
    return context.new_page(), watch


def _goto(page, watch, site, url):
    watch.where = url
    page.goto(site.url + url)
    # Diagrams are rendered by script after load; wait so layout and axe see the final page.
    page.wait_for_function(MERMAID_DRAWN)


SCHEMES = {"default": "light", "slate": "dark"}


def _scheme(page) -> str:
    return SCHEMES[page.locator("body").get_attribute("data-md-color-scheme")]


def _toggle_scheme(page):
    """Click the header's palette toggle, as a reader does; returns the new scheme."""
    other = "dark" if _scheme(page) == "light" else "light"
    page.locator(f"label[title='Switch to {other} mode']").click()
    expect(page.locator("body")).to_have_attribute(
        "data-md-color-scheme", next(k for k, v in SCHEMES.items() if v == other)
    )
    return other


def _violations(page, url) -> list[str]:
    found = []
    for v in page.evaluate("window.__axe.then(r => r.violations)"):
        if v["impact"] in BLOCKING:
            nodes = v["nodes"]
            targets = ", ".join(" ".join(n["target"]) for n in nodes[:3])
            checks = [c["message"] for c in nodes[0]["any"] + nodes[0]["all"] + nodes[0]["none"]]
            found.append(
                f"{url} ({_scheme(page)}): {v['id']} ({v['impact']}, {len(nodes)} elements): "
                f"{v['help']}: {targets}; first: {'; '.join(checks)}"
            )
    return found


def _sideways(page, url) -> list[str]:
    """Whether the page scrolls sideways in a phone-wide window."""
    page.set_viewport_size(PHONE["viewport"])
    width, client, scroll = page.evaluate(
        "[innerWidth, document.documentElement.clientWidth, document.documentElement.scrollWidth]"
    )
    page.set_viewport_size(DESKTOP)
    if width != PHONE["viewport"]["width"] or scroll > min(width, client):
        return [f"{url}: {scroll} px of content in a {width} px wide window"]
    return []


@dataclass
class Tour:
    """Every nav page: axe in both colour schemes on a desktop, and the width on a phone."""

    watches: list[Watch]
    violations: dict[str, list[str]]
    overflow: list[str]


@pytest.fixture(scope="module")
def tour(browser, site) -> Tour:
    """axe takes a second or more a page, so two desktop tabs (two renderer processes) check two
    pages side by side: each runs axe, switches the colour scheme with the toggle and runs it
    again. The switch is remembered, so a tab's next page opens in the scheme it ended with.
    Then the tab is narrowed to a phone's 390 px: same CSS, without loading every page again
    (the drawer test below emulates a phone in full)."""
    tabs = [_new_page(browser, site, viewport=DESKTOP) for _ in range(2)]
    axe_source = Axe().axe_script
    violations, overflow = {"light": [], "dark": []}, []
    for batch in (site.pages[i : i + len(tabs)] for i in range(0, len(site.pages), len(tabs))):
        pairs = list(zip(batch, tabs, strict=False))
        for url, (page, watch) in pairs:
            _goto(page, watch, site, url)
            page.evaluate(axe_source)
            page.evaluate(AXE_RUN)
        for url, (page, _) in pairs:
            # Wait for axe's result first: until axe is done the tab's main thread is busy, and
            # reading the scheme could time out on a loaded machine.
            found = _violations(page, url)
            violations[_scheme(page)] += found
            # Colours must be final when axe measures them, not halfway through a transition.
            page.add_style_tag(content="*, ::before, ::after { transition: none !important }")
            _toggle_scheme(page)
            page.evaluate(AXE_RUN)
        for url, (page, _) in pairs:
            found = _violations(page, url)
            violations[_scheme(page)] += found
            overflow += _sideways(page, url)
            # Leave only once the search index is in, so no request is cut off by leaving.
            page.wait_for_function(SEARCH_READY)
    for page, _ in tabs:
        page.context.close()
    return Tour([watch for _, watch in tabs], violations, overflow)


def test_every_page_loads_without_errors(tour):
    problems = [p for watch in tour.watches for p in watch.errors + watch.failed]
    assert not problems, "\n".join(problems)


def test_no_page_talks_to_another_origin(tour):
    requests = [r for watch in tour.watches for r in watch.requests]
    # The search worker's own fetch is among the recorded requests: workers are watched too.
    assert any(r.endswith("/search/search_index.json") for r in requests)
    foreign = [r for watch in tour.watches for r in watch.foreign]
    assert not foreign, "requests to another origin:\n" + "\n".join(foreign)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_accessibility_violations(tour, scheme):
    assert not tour.violations[scheme], "axe-core found:\n" + "\n".join(tour.violations[scheme])


def test_no_page_scrolls_sideways_on_a_phone(tour):
    assert not tour.overflow, "\n".join(tour.overflow)


@pytest.fixture(scope="module")
def search(browser, site):
    page, watch = _new_page(browser, site, viewport=DESKTOP)
    yield page, watch
    page.context.close()
    problems = watch.foreign + watch.errors + watch.failed
    assert not problems, "\n".join(problems)


def _first_result(search, site, query: str) -> str:
    """On a freshly opened home page, open search with its hotkey, type the query key by key as a
    reader does, and return the first result's page."""
    page, watch = search
    _goto(page, watch, site, "/")
    page.wait_for_function(SEARCH_READY)
    page.keyboard.press("/")
    box = page.locator("input.md-search__input")
    expect(box).to_be_focused()
    box.press_sequentially(query)
    expect(box).to_have_value(query)
    first = page.locator(".md-search-result__item a").first
    expect(first).to_be_visible()
    # Results follow each key; wait until the list stops changing.
    seen, same = None, 0
    while same < 3:
        href = first.get_attribute("href")
        same, seen = (same + 1, seen) if href == seen else (0, href)
        page.wait_for_timeout(100)
    return urllib.parse.urlsplit(seen).path


# What a reader types into search, and the pages any of which is right as the first result.
# One row per query; add rows here. The reference says what retain_graph does, detach() is the
# fix of both the GAN and the RNN pages (either one is right), the RNN page is the
# hidden-state case, and the home page is the error's own page (boosted: every page quotes it).
# The rest are the words of the causes people hit in real code: the library, class or method
# their code names. "backward twice" and "gradient penalty" also appear in newer pages' titles;
# their own pages are boosted to stay first.
SEARCH_FIRST = {
    "retain_graph": {"/reference/"},
    "detach": {"/scenarios/gan/", "/scenarios/rnn-hidden-state/"},
    "hidden state": {"/scenarios/rnn-hidden-state/"},
    "Trying to backward through the graph a second time": {"/"},
    "backward twice": {"/scenarios/backward-twice/"},
    "gradient penalty": {"/scenarios/higher-order-gradients/"},
    "BatchNorm": {"/scenarios/batchnorm/"},
    "RNNCell": {"/scenarios/rnn-hidden-state/"},
    "Bernoulli": {"/scenarios/hidden-cache/"},
    "distributions": {"/scenarios/hidden-cache/"},
    "parametrize": {"/scenarios/hidden-cache/"},
    "KV cache": {"/scenarios/hidden-cache/"},
    "zero_": {"/scenarios/state-reset/"},
    "LBFGS": {"/scenarios/optimizers/"},
    "closure": {"/scenarios/optimizers/"},
    "SAM": {"/scenarios/optimizers/"},
    "DDP": {"/scenarios/ddp/"},
    "DistributedDataParallel": {"/scenarios/ddp/"},
    "AMP": {"/scenarios/amp/"},
    "GradScaler": {"/scenarios/amp/"},
    "hook": {"/scenarios/forward-hooks/"},
    "Gaussian process": {"/scenarios/targets-with-graph/"},
    "EMA": {"/scenarios/targets-with-graph/"},
    "teacher": {"/scenarios/targets-with-graph/"},
}


@pytest.mark.parametrize("query", SEARCH_FIRST)
def test_search_finds_the_right_page_first(search, site, query):
    first = _first_result(search, site, query)
    assert first in SEARCH_FIRST[query], f"{query!r}: first result {first}"


def test_the_colour_toggle_switches_and_is_remembered(browser, site):
    page, watch = _new_page(browser, site, viewport=DESKTOP)
    _goto(page, watch, site, "/")
    body = page.locator("body")
    expect(body).to_have_attribute("data-md-color-scheme", "default")
    light = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert _toggle_scheme(page) == "dark"
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") != light
    page.reload()
    expect(body).to_have_attribute("data-md-color-scheme", "slate")
    _goto(page, watch, site, SCENARIO)
    expect(body).to_have_attribute("data-md-color-scheme", "slate")
    assert _toggle_scheme(page) == "light"
    page.reload()
    expect(body).to_have_attribute("data-md-color-scheme", "default")
    page.context.close()


def test_the_copy_button_copies_the_snippet(browser, site):
    page, watch = _new_page(
        browser, site, viewport=DESKTOP, permissions=["clipboard-read", "clipboard-write"]
    )
    _goto(page, watch, site, SCENARIO)
    source = (ROOT / "docs" / SCENARIO.strip("/")).with_suffix(".md").read_text()
    snippet = ROOT / re.search(r'--8<-- "([^":]+)"', source).group(1)
    block = page.locator(".md-typeset .highlight").first
    block.hover()
    block.locator("button.md-code__button[data-md-type='copy']").click()
    assert page.evaluate("navigator.clipboard.readText()").strip() == snippet.read_text().strip()
    page.context.close()


def test_a_deep_link_scrolls_to_its_heading(browser, site):
    page, watch = _new_page(browser, site, viewport=DESKTOP)
    _goto(page, watch, site, SCENARIO + "#fix-detach-fake")
    heading = page.locator("#fix-detach-fake")
    expect(heading).to_be_in_viewport()
    # In view means below the sticky header, not under it.
    header = page.locator(".md-header").bounding_box()
    assert heading.bounding_box()["y"] >= header["y"] + header["height"] - 1
    page.context.close()


def test_the_navigation_drawer_opens_on_a_phone(browser, site):
    page, watch = _new_page(browser, site, **PHONE)
    _goto(page, watch, site, "/")
    drawer = page.locator(".md-sidebar--primary")
    link = drawer.get_by_role("link", name="Diagnose", exact=True)
    expect(link).not_to_be_in_viewport()
    page.locator(".md-header label[for='__drawer']").click()
    expect(link).to_be_in_viewport()
    link.click()
    expect(page).to_have_url(site.url + "/diagnose/")
    page.context.close()


def test_no_buttons_on_paper(browser, site):
    """The page Chromium prints to the PDF, in print media: no copy or download button shows,
    neither Material's nor the notebook's."""
    page, watch = _new_page(browser, site, viewport=DESKTOP)
    _goto(page, watch, site, "/print_page/")
    page.emulate_media(media="print")
    buttons = page.locator("button, clipboard-copy, a.md-content__button")
    assert buttons.count() > 10, "no buttons found on the print page: the test looks wrong"
    shown = [
        buttons.nth(i).evaluate("e => e.outerHTML.slice(0, 120)")
        for i in range(buttons.count())
        if buttons.nth(i).is_visible()
    ]
    assert not shown, "buttons printed on paper:\n" + "\n".join(shown)
    page.context.close()
