"""The built site in a real browser: it works, it is accessible, and it talks to no one else.

Headless Chromium, driven by Playwright, against the session's `mkdocs build` served from a
thread on 127.0.0.1 (tools/sitekit.py). axe-core (from axe-playwright-python) checks every page:
all its rules in one colour scheme, and the rules that read colours in the other one too.
`make screenshots` (scripts/screenshots.py) takes the pictures CI keeps.
"""

import urllib.parse

import pytest
import sitekit
import support
from axe_playwright_python.sync_playwright import Axe
from page_tour import (
    AXE_RUN,
    COLOR_OF,
    COSTS_PLOTS,
    DESKTOP,
    FIRST_BLOCK,
    ONE_TOKEN_A_LOOK,
    PHONE,
    SEARCH_READY,
    Site,
    goto,
    new_page,
    scheme_of,
    toggle_scheme,
    violations_of,
)
from playwright.sync_api import expect
from snippet_harness.pages import Site as Snippets
from support import ROOT

# Checked once for the whole session by conftest.py, before any test runs.
REQUIRES = ("chromium",)
SCENARIO = "/scenarios/gan/"


@pytest.fixture(scope="module")
def site(nav, served_site) -> Site:
    return Site(served_site, list(nav))


# The tour of every page (`tour`, a fixture of conftest.py) runs in a process of its own,
# started as soon as the site is built: tests/page_tour.py.


def test_every_page_loads_without_errors(tour):
    assert not tour.errors, "\n".join(tour.errors)


def test_no_page_talks_to_another_origin(tour):
    # The search worker's own fetch is among the recorded requests: workers are watched too.
    assert any(r.endswith("/search/search_index.json") for r in tour.requests)
    assert not tour.foreign, "requests to another origin:\n" + "\n".join(tour.foreign)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_accessibility_violations(tour, scheme):
    # The second scheme's run would check nothing if axe renamed its colour category.
    assert {"color-contrast", "link-in-text-block"} <= set(tour.colour_rules), tour.colour_rules
    # All of axe's rules ran in this scheme too, on some pages (the palette toggle's label).
    assert tour.full_runs[scheme] > 0, tour.full_runs
    assert not tour.violations[scheme], "axe-core found:\n" + "\n".join(tour.violations[scheme])


def test_the_tour_checks_each_code_tokens_look_once_a_page(browser, site):
    """The tour hides the code tokens whose look an earlier token of the page has (axe's colour
    rules would take minutes on them): a token that looks unlike the others must still be
    checked, even the page's last one, and the page must be whole again afterwards."""
    page, watch = new_page(browser, site, viewport=DESKTOP)
    goto(page, watch, site, SCENARIO)
    page.evaluate(
        r"""() => {
          const words = [...document.querySelectorAll(".highlight code span")].filter(
            (el) => !el.firstElementChild && /^\w{6,}$/.test(el.textContent));
          words.at(-1).style.color = "#f0f0f0";
        }"""
    )
    page.evaluate(Axe().axe_script)
    page.evaluate(ONE_TOKEN_A_LOOK, True)
    hidden = page.locator("[data-axe-same-look]").count()
    page.evaluate(AXE_RUN, ["color-contrast"])
    found = violations_of(page, SCENARIO)
    page.evaluate(ONE_TOKEN_A_LOOK, False)
    shown_again = page.locator("[data-axe-same-look]").count()
    page.context.close()
    assert hidden > 100, f"only {hidden} tokens shared a look on {SCENARIO}"
    assert any("color-contrast" in f for f in found), found
    assert shown_again == 0


def test_no_page_scrolls_sideways_on_a_phone(tour):
    assert not tour.overflow, "\n".join(tour.overflow)


@pytest.fixture(scope="module")
def search(browser, site):
    """The home page, opened once for every query: once the search index is in, the search
    hotkey opens the search dialog with the cursor in its box, which stays open."""
    page, watch = new_page(browser, site, real_search=None, viewport=DESKTOP)
    goto(page, watch, site, "/")
    page.wait_for_function(SEARCH_READY)
    page.keyboard.press("/")
    expect(page.locator("#__search")).to_be_checked()
    yield page
    page.context.close()
    problems = watch.foreign + watch.errors + watch.failed
    assert not problems, "\n".join(problems)


def _results(page, query: str, n: int = 1) -> list[str]:
    """Put the query into the open search box, as a paste does, and return the pages of the
    first n results, each with the sections it lists (`/page/#id`); then empty the box, as a
    reader does before the next query. Material searches on each keyup: one key after the
    paste makes one query, so the first list shown is that query's (typed key by key, each
    prefix was a query of its own, and a prefix's list could pass for the query's)."""
    box = page.locator("input.md-search__input")
    results = page.locator(".md-search-result__item")
    expect(box).to_be_focused()
    # Nothing left of the previous query: neither its text nor its results.
    expect(box).to_have_value("")
    expect(results).to_have_count(0)
    try:
        box.fill(query)
        box.press("End")
        expect(results.locator("a").first).to_be_visible()
        seen = results.evaluate_all(
            f"items => items.slice(0, {n}).map(i => [...i.querySelectorAll('a')].map(a => a.href))"
        )
        return [
            [
                urllib.parse.urlsplit(h)._replace(scheme="", netloc="", query="").geturl()
                for h in item
            ]
            for item in seen
        ]
    finally:
        box.press("Control+a")
        box.press("Backspace")
        expect(results).to_have_count(0)


def _first_result(page, query: str) -> str:
    return urllib.parse.urlsplit(_results(page, query)[0][0]).path


# What a reader types into search, and the pages any of which is right as the first result.
# One row per query; add rows here. The reference says what retain_graph does, detach() is the
# fix of both the GAN and the RNN pages (either one is right), the RNN page is the
# hidden-state case, and the home page is the error's own page (boosted: every page quotes it).
# The rest are the words of the causes people hit in real code: the library, class or method
# their code names. "backward twice" and "gradient penalty" also appear in newer pages' titles;
# their own pages are boosted to stay first.
SEARCH_FIRST = {
    "retain_graph": {"/reference/"},
    "detach": {"/fix/", "/scenarios/gan/", "/scenarios/rnn-hidden-state/"},
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
    "recompute": {"/fix/"},
    "create_graph": {"/reference/"},
    "freed_graph_report": {"/diagnose/"},
    "report_freed": {"/diagnose/"},
    "FSDP": {"/scenarios/fsdp/"},
    "setStorage": {"/scenarios/fsdp/"},
    "max_eval": {"/scenarios/optimizers/"},
    "Sophia": {"/scenarios/optimizers/"},
    "token count": {"/scenarios/ddp/"},
    "preallocated": {"/scenarios/hidden-cache/"},
    "CudnnBatchNormBackward0": {"/scenarios/batchnorm/"},
    "skipped batch": {"/scenarios/stale-state/"},
    "EvolveGCN": {"/real-programs/"},
    "DeepXDE": {"/libraries/deepxde/"},
    # Libraries' and frameworks' names: the pages with their programs.
    "pytorch-lightning": {"/libraries/pytorch-lightning/"},
    "training_step": {"/libraries/pytorch-lightning/", "/command-score/", "/diagnose/"},
    "manual_backward": {"/libraries/pytorch-lightning/", "/command-score/"},
    "accelerate": {"/libraries/accelerate/"},
    "gpytorch": {"/libraries/gpytorch/"},
}


@pytest.mark.parametrize("query", SEARCH_FIRST)
def test_search_finds_the_right_page_first(search, query):
    first = _first_result(search, query)
    assert first in SEARCH_FIRST[query], f"{query!r}: first result {first}"


# What users of a library type: its name, and the API their code calls (one query per library,
# at least one per program). Each query's target (a page, or a page's section) must be among
# the first three results: the reader sees them without scrolling.
SEARCH_TOP_THREE = {
    # pytorch-lightning, accelerate, gpytorch and DeepXDE: SEARCH_FIRST (their page first).
    "lightning": "/libraries/pytorch-lightning/",
    "create_graph training_step": "/libraries/pytorch-lightning/"
    "#case-gradient-penalty-backward-in-training-step",
    "num_sanity_val_steps": "/libraries/pytorch-lightning/#case-lseg-logit-scale-exp-in-init",
    "Dataset1D": "/libraries/accelerate/#case-conv1d-data-before-training",
    "torchmetrics": "/libraries/torchmetrics/",
    "VariationalStrategy": "/libraries/gpytorch/#case-variational-eval-cholesky-cache",
    "variational_distribution": "/libraries/gpytorch/"
    "#case-variational-distribution-memo-in-train-loop",
    "detach_test_caches": "/libraries/gpytorch/#case-exact-gp-trained-in-eval-mode",
    "botorch": "/libraries/botorch/",
    "fit_gpytorch_mll": "/libraries/botorch/#case-fit-gpytorch-mll-train-data-requires-grad",
    "pyro": "/libraries/pyro/",
    "Trace_ELBO": "/libraries/pyro/#case-pyrogp-svi-step-variational-memo",
    "TransformedDistribution": "/libraries/pyro/#case-spline-flow-cache-reused-after-step",
    "torch_geometric": "/libraries/torch-geometric/",
    "GNNExplainer": "/libraries/torch-geometric/#case-gnnexplainer-target-with-graph",
    "OperatorBC": "/libraries/deepxde/#case-ic-variable-inside-sin",
    "NeumannBC": "/libraries/deepxde/#case-neumann-bc-variable",
    "dde.data.FPDE": "/libraries/deepxde/#case-fpde-alpha-lbfgs-dynamic",
    "diffusers": "/libraries/diffusers/",
    "PNDMScheduler": "/libraries/diffusers/#case-null-text-inversion-pndm",
    "pytorch-metric-learning": "/libraries/pytorch-metric-learning/",
    "DynamicSoftMarginLoss": "/libraries/pytorch-metric-learning/"
    "#case-dynamic-soft-margin-histogram",
    "snntorch": "/libraries/snntorch/",
    "utils.reset": "/libraries/snntorch/#case-reset-on-wrapper-class-misses-nested-leaky",
    "reset_mem": "/libraries/snntorch/#case-reset-misses-loss-module-copy",
    "kornia": "/libraries/kornia/",
    "ColorJitter": "/libraries/kornia/#case-color-jitter-built-from-parameter",
    "titans-pytorch": "/libraries/titans-pytorch/",
    "NeuralMemState": "/libraries/titans-pytorch/#case-neural-mem-state-across-segments",
    "mem_state_detach": "/libraries/titans-pytorch/#case-neural-mem-state-across-segments",
    "transformers": "/libraries/transformers/",
    "mask_token_id": "/libraries/transformers/#case-soft-masked-bert-mask-embedding-in-init",
    "BigBirdForPreTraining": "/libraries/transformers/"
    "#case-protstonkgs-kg-backbone-special-embeddings",
    "past_key_values": "/libraries/transformers/",
    "pytorch-frame": "/libraries/pytorch-frame/",
    "TextEmbedderConfig": "/libraries/pytorch-frame/#case-text-embedder-output-with-graph",
    "torchflows": "/libraries/torchflows/",
    "RealNVP": "/libraries/torchflows/#case-latent-codes-with-encoder-graph-fit",
    "torchsurv": "/libraries/torchsurv/",
    "neg_partial_log_likelihood": "/libraries/torchsurv/#case-momentum-batch-smaller-than-memory",
    "timm": "/libraries/#no-program",
    "keras": "/libraries/keras/",
    "CCTTokenizer": "/libraries/keras/#case-cct-position-embedding-built-eagerly",
    "TokenLearner": "/libraries/keras/#case-token-learner-position-embedding-helper",
    "FNetLayer": "/libraries/keras/#case-fnet-classifier-positional-encoding",
}


@pytest.mark.parametrize("query", SEARCH_TOP_THREE)
def test_search_finds_the_library_program_in_the_first_three(search, query):
    target = SEARCH_TOP_THREE[query]
    found = _results(search, query, 3)
    # A page is found by any of its results; a section, by its own link.
    hits = [link if "#" in target else link.split("#")[0] for item in found for link in item]
    assert target in hits, f"{query!r}: first three results {found}"


# Names that only a program's code has (the search index keeps its code's names, not its
# code: overrides/hooks/search_code.py), as a reader of that program would type them: its
# classes, its functions, its variables and the library API it calls. Each query's target is a
# program's section, which must be among the first three results.
SEARCH_CODE_NAMES = {
    "update_depth_actor": "/command-score/#program-parkour-depth-latent-reused-across-iterations",
    "select_action": "/command-score/#program-reinforce-saved-actions-replayed-after-step",
    "InfiniAttention": "/command-score/#program-infini-attention-memory-kept-across-segments",
    "FedAVGClient": "/command-score/"
    "#program-federated-gradient-inversion-uploaded-grads-keep-client-graph",
    "n_local_heads": "/command-score/#program-llama-kv-cache-written-in-place-during-finetuning",
    "batch_expected_improvement": "/command-score/"
    "#program-gp-predictive-mean-cache-in-acquisition-loop",
    "MultiViewClassifier": "/command-score/#expert-module-accumulator-not-reset-in-forward",
    "do_cache_adj_prep": "/real-programs/#case-gcn-adjacency-cache-during-attack",
    "init_hidden_c_for_lstm": "/real-programs/#case-next-word-from-previous-batch",
    "SingleTaskGP": "/libraries/botorch/#case-fit-gpytorch-mll-train-data-requires-grad",
    "GaussianLikelihood": "/libraries/gpytorch/#case-exact-gp-trained-in-eval-mode",
    "HashTextEmbedder": "/libraries/pytorch-frame/#case-text-embedder-output-with-graph",
    "logits_per_image": "/libraries/pytorch-lightning/#case-lseg-logit-scale-exp-in-init",
    "BigBirdLMPredictionHead": "/libraries/transformers/"
    "#case-protstonkgs-kg-backbone-special-embeddings",
}


@pytest.mark.parametrize("query", SEARCH_CODE_NAMES)
def test_search_finds_a_program_by_a_name_in_its_code(search, built_site, query):
    target = SEARCH_CODE_NAMES[query]
    page = built_site / urllib.parse.urlsplit(target).path.strip("/") / "index.html"
    code = support.soup(page.read_text()).select(".md-content .highlight pre")
    assert any(query in block.get_text() for block in code), f"{query!r}: not in its page's code"
    found = _results(search, query, 3)
    hits = [link for item in found for link in item]
    assert target in hits, f"{query!r}: first three results {found}"


def test_a_search_with_no_result_offers_the_ways_in(search):
    box = search.locator("input.md-search__input")
    hint = search.locator(".bt-search-hint")
    expect(box).to_have_value("")
    box.press_sequentially("qzxqzxq")
    expect(hint).to_be_visible()
    hrefs = hint.locator("a").evaluate_all("links => links.map(a => a.href)")
    paths = [urllib.parse.urlsplit(h).path for h in hrefs]
    assert paths == ["/scenarios/", "/libraries/", "/diagnose/"]
    box.press("Control+a")
    box.press("Backspace")
    expect(hint).to_be_hidden()


def test_the_colour_toggle_switches_and_is_remembered(browser, site):
    page, watch = new_page(browser, site, viewport=DESKTOP)
    goto(page, watch, site, "/")
    body = page.locator("body")
    expect(body).to_have_attribute("data-md-color-scheme", "default")
    light = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert toggle_scheme(page) == "dark"
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") != light
    page.reload()
    expect(body).to_have_attribute("data-md-color-scheme", "slate")
    goto(page, watch, site, SCENARIO)
    expect(body).to_have_attribute("data-md-color-scheme", "slate")
    assert toggle_scheme(page) == "light"
    page.reload()
    expect(body).to_have_attribute("data-md-color-scheme", "default")
    page.context.close()


def test_the_copy_button_copies_the_snippet(browser, site):
    page, watch = new_page(
        browser, site, viewport=DESKTOP, permissions=["clipboard-read", "clipboard-write"]
    )
    goto(page, watch, site, SCENARIO)
    # What the page's first python block shows, as the build expands its include (a section of
    # a script: without the section markers).
    first = _python_blocks(SCENARIO)[0]
    block = page.locator(".md-typeset .highlight").first
    block.hover()
    block.locator("button.md-code__button[data-md-type='copy']").click()
    assert page.evaluate("navigator.clipboard.readText()").strip() == first.code.strip()
    page.context.close()


def test_a_deep_link_scrolls_to_its_heading(browser, site):
    page, watch = new_page(browser, site, viewport=DESKTOP)
    goto(page, watch, site, SCENARIO + "#fix-detach-fake")
    heading = page.locator("#fix-detach-fake")
    expect(heading).to_be_in_viewport()
    # In view means below the sticky header, not under it.
    header = page.locator(".md-header").bounding_box()
    assert heading.bounding_box()["y"] >= header["y"] + header["height"] - 1
    page.context.close()


def test_the_navigation_drawer_opens_on_a_phone(browser, site):
    page, watch = new_page(browser, site, **PHONE)
    goto(page, watch, site, "/")
    drawer = page.locator(".md-sidebar--primary")
    link = drawer.get_by_role("link", name="Diagnose", exact=True)
    expect(link).not_to_be_in_viewport()
    page.locator(".md-header label[for='__drawer']").click()
    expect(link).to_be_in_viewport()
    link.click()
    expect(page).to_have_url(site.url + "/diagnose/")
    page.context.close()


def _python_blocks(url: str) -> list:
    """The python blocks of the page at `url`, read from its source as the harness reads them."""
    source = ROOT / "docs" / sitekit.source_of(url, support.config()["nav"])
    blocks, _ = Snippets(ROOT).page(source)
    return blocks


def _first_screen_problems(url: str, found: dict | None) -> list[str]:
    """What keeps a scenario page from opening on its fix: the symptom in one paragraph under
    the h1, then the page's first python block, an excerpt of a tested script with its changed
    lines highlighted and a title that starts with "Fix", wholly on the first screen (below
    the sticky header, inside the window)."""
    first = _python_blocks(url)[0]
    problems = []
    if first.excerpt is None or not first.hl_lines:
        problems.append(f"{url}: the first python block is not an excerpt with hl_lines")
    if found is None or found["code"].strip() != first.code.strip():
        return [*problems, f"{url}: the first code block is not the first python block"]
    inside = (
        found["top"] >= found["headerBottom"] - 1
        and found["bottom"] <= found["height"]
        and found["left"] >= 0
        and found["right"] <= found["width"]
    )
    box = {k: round(found[k]) for k in ("top", "bottom", "left", "right", "width", "height")}
    if not inside:
        problems.append(f"{url}: the fix is not on the first screen: {box}")
    if not found["title"].startswith("Fix"):
        problems.append(f"{url}: the first code block's title is {found['title']!r}")
    if not found["highlighted"]:
        problems.append(f"{url}: the fix has no highlighted line")
    if found["before"] != "H1 P":
        problems.append(f"{url}: between the h1 and the fix: {found['before']}")
    return problems


def _scenario_pages(site) -> list[str]:
    urls = [u for u in site.pages if u.startswith("/scenarios/") and u != "/scenarios/"]
    assert len(urls) >= 25, urls
    return urls


def test_every_scenario_shows_its_fix_on_a_laptops_first_screen(tour, site):
    """Read by the tour, whose window is a laptop's (1366 by 900), as each page opened."""
    urls = _scenario_pages(site)
    assert sorted(tour.first_blocks) == sorted(urls)
    problems = [p for url in urls for p in _first_screen_problems(url, tour.first_blocks[url])]
    assert not problems, "laptop:\n" + "\n".join(problems)


def test_every_scenario_shows_its_fix_on_a_phones_first_screen(browser, site):
    page, watch = new_page(browser, site, **PHONE)
    problems = []
    for url in _scenario_pages(site):
        goto(page, watch, site, url)
        problems += _first_screen_problems(url, page.evaluate(FIRST_BLOCK))
    page.context.close()
    assert not problems, "phone:\n" + "\n".join(problems)


# An image's width as loaded, its top left pixel as its file has it, and the page's background.
CORNER = """(img) => {
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 1;
  const context = canvas.getContext("2d");
  context.drawImage(img, 0, 0, 1, 1, 0, 0, 1, 1);
  const [r, g, b] = context.getImageData(0, 0, 1, 1).data;
  const page = getComputedStyle(document.body).backgroundColor;
  return [img.naturalWidth, `rgb(${r}, ${g}, ${b})`, page];
}"""


def test_the_costs_plot_shows_the_one_drawn_for_the_colour_scheme(browser, site):
    """In each colour scheme one plot shows on the costs page: the one drawn for it, loaded, on
    the page's own background. (On paper: tests/test_offline.py, on the page the PDF prints.)"""
    page, watch = new_page(browser, site, viewport=DESKTOP)
    goto(page, watch, site, "/costs/")
    plots = page.locator(".md-content img[src*='memory']")

    def shown():
        return [p.get_attribute("src").rsplit("/", 1)[-1] for p in plots.all() if p.is_visible()]

    expect(plots).to_have_count(len(COSTS_PLOTS))
    for scheme, plot in COSTS_PLOTS.items():
        if scheme_of(page) != scheme:
            toggle_scheme(page)
        assert shown() == [plot], scheme
        drawn = page.locator(f".md-content img[src='{plot}']")
        width, corner, background = drawn.evaluate(CORNER)
        assert width > 0, f"{plot} did not load"
        assert corner == background, f"{scheme}: {plot}'s corner {corner} on a {background} page"
    page.context.close()
    assert not watch.failed, "\n".join(watch.failed)


def test_a_wrong_fix_and_a_raises_never_look_like_a_fix_or_an_output(tour):
    """Every page, in both colour schemes (the tour checks each page in the scheme it opens in
    and again after the toggle): every wrong-fix section is in the dashed, danger-coloured box
    with its warning in words; every Raises fence has the danger border, no Output fence has
    it."""
    # Fewer would mean the selectors no longer find what the pages hold.
    assert tour.wrong_fix_sections >= 30 and tour.raises_fences >= 30, tour
    assert not tour.misleading, "\n".join(tour.misleading)


# On the page as drawn: the fix colour, how many fix sections and Fix excerpts there are, and
# which of them do not look like a fix: the solid bar in the fix colour, and a check mark in
# that colour before the section's heading or the excerpt's title (extra.css).
FIX_LOOK = (
    "() => {\n"
    + COLOR_OF
    + """  const fix = colorOf("var(--bt-fix)");
  const bar = (e) => {
    const style = getComputedStyle(e);
    return style.borderLeftStyle === "solid" && style.borderLeftColor === fix
      && parseFloat(style.borderLeftWidth) > 0;
  };
  const checked = (e) => {
    const mark = e && getComputedStyle(e, "::before");
    return !!mark && mark.content === '"✓ "' && mark.color === fix;
  };
  const sections = [...document.querySelectorAll(".md-content section.bt-fix")];
  const excerpts = [...document.querySelectorAll(".md-content .highlight.bt-fix-code")];
  const wrong = [
    ...sections.filter((s) => !(bar(s) && checked(s.querySelector(":scope > :is(h2, h3, h4)"))))
      .map((s) => "section: " + s.firstElementChild.textContent.trim().slice(0, 60)),
    ...excerpts.filter((f) => !(bar(f) && checked(f.querySelector(":scope > .filename"))))
      .map((f) => "excerpt: " + f.textContent.trim().slice(0, 60)),
  ];
  return [fix, sections.length, excerpts.length, wrong];
}"""
)


def test_a_fix_and_its_excerpt_look_like_a_fix_in_both_schemes(browser, site):
    """A scenario page, in both colour schemes: every fix section has the solid bar in the fix
    colour and a check mark before its heading, and the Fix excerpt at the top the same bar and
    a check mark before its title; the dark scheme draws them in a green of its own."""
    page, watch = new_page(browser, site, viewport=DESKTOP)
    goto(page, watch, site, SCENARIO)
    colours, problems = {}, []
    for scheme in ("default", "slate"):
        page.evaluate(f"document.body.setAttribute('data-md-color-scheme', '{scheme}')")
        colours[scheme], sections, excerpts, wrong = page.evaluate(FIX_LOOK)
        # None would mean the selectors above no longer find what the page holds.
        assert sections and excerpts, (scheme, sections, excerpts)
        problems += [f"{scheme}: {w}" for w in wrong]
    page.context.close()
    assert not problems, "\n".join(problems)
    assert colours["default"] != colours["slate"], colours


# The words of an element's text, each as the lines it is drawn on: a word on two lines was
# cut in the middle. Also the number of lines the element takes.
WORD_LINES = r"""(element) => {
  const nodes = [];
  let text = "";
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    nodes.push([walker.currentNode, text.length]);
    text += walker.currentNode.data;
  }
  const point = (i, end) => {
    const [node, start] = nodes.findLast(([, s]) => (end ? s < i : s <= i));
    return [node, i - start];
  };
  const tops = new Set(), cut = [];
  for (const word of text.matchAll(/\S+/g)) {
    const range = document.createRange();
    range.setStart(...point(word.index, false));
    range.setEnd(...point(word.index + word[0].length, true));
    const rects = [...range.getClientRects()].filter((r) => r.width > 0);
    rects.forEach((r) => tops.add(Math.round(r.top)));
    if (rects.some((r) => Math.abs(r.top - rects[0].top) > rects[0].height / 2)) {
      cut.push(word[0]);
    }
  }
  return [tops.size, cut];
}"""


def test_the_notebook_error_wraps_between_words_on_a_phone(browser, site):
    """mkdocs-jupyter wraps an output anywhere (word-break: break-all), which cut the words of
    the error line in two on a phone; extra.css wraps it between words. Every output on the
    notebook page keeps its line breaks and wraps between words, none is wider than its box,
    and the error line, wrapped on a phone, has each word whole on one line."""
    page, watch = new_page(browser, site, **PHONE)
    goto(page, watch, site, "/notebooks/walkthrough/")
    outputs = page.locator(".md-content .jupyter-wrapper .jp-OutputArea-output pre")
    styles = outputs.evaluate_all(
        """(pres) => pres.map((e) => [getComputedStyle(e).whiteSpace,
            getComputedStyle(e).wordBreak, e.scrollWidth <= e.clientWidth])"""
    )
    assert len(styles) >= 3 and {tuple(s) for s in styles} == {("pre-wrap", "normal", True)}, (
        f"[white-space, word-break, fits] of each output: {styles}"
    )
    lines, cut = outputs.filter(has_text="Trying to backward through the graph").evaluate(
        WORD_LINES
    )
    # On one or two lines the error would not show how it wraps.
    assert lines >= 5, f"the error takes {lines} lines on a phone"
    assert not cut, f"words cut in two: {cut}"
    page.context.close()


HOVER_NONE = "matchMedia('(hover: none)').matches"


def test_a_heading_permalink_shows_on_a_touch_screen_and_on_hover_with_a_mouse(browser, site):
    """A heading's permalink (the pilcrow) shows when the pointer is over the heading; a touch
    screen has no hover (`(hover: none)`), so there extra.css shows it always."""
    heading = "#fix-detach-fake"
    page, watch = new_page(browser, site, **PHONE)  # is_mobile and has_touch
    goto(page, watch, site, SCENARIO)
    assert page.evaluate(HOVER_NONE), "the phone does not emulate a touch screen"
    expect(page.locator(f"{heading} > .headerlink")).to_have_css("opacity", "1")
    page.context.close()
    page, watch = new_page(browser, site, viewport=DESKTOP)
    goto(page, watch, site, SCENARIO)
    assert not page.evaluate(HOVER_NONE)
    permalink = page.locator(f"{heading} > .headerlink")
    expect(permalink).to_have_css("opacity", "0")
    page.locator(heading).hover()
    expect(permalink).to_have_css("opacity", "1")
    page.context.close()


@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_the_home_page_opens_on_the_fix_and_the_way_to_your_case(browser, site, screen):
    """First screen of the home page: the usual fix, and the first shapes of code with a link
    to each one's fix; on a desktop, the whole list down to the diagnose command."""
    options = {"viewport": {"width": 1366, "height": 900}} if screen == "desktop" else PHONE
    page, watch = new_page(browser, site, **options)
    goto(page, watch, site, "/")
    article = page.locator(".md-content")
    expect(article.get_by_text("The usual fix:")).to_be_in_viewport()
    cases = article.locator("#your-case + ul > li")
    expect(cases.first.locator("a[href*='#fix-']")).to_be_in_viewport()
    if screen == "desktop":
        expect(cases.last.get_by_role("link", name="the diagnose command")).to_be_in_viewport()
    page.context.close()


def test_a_wide_diagram_keeps_a_legible_size_on_a_phone(browser, site):
    """understand.md's graph, shrunk to a phone's width, had labels 5 px high: it keeps its
    size and scrolls sideways in its own box (the page itself does not: the tour checks)."""
    page, watch = new_page(browser, site, **PHONE)
    goto(page, watch, site, "/understand/")
    box = page.locator(".bt-diagram")
    diagram = box.locator(".mermaid")
    assert diagram.bounding_box()["width"] >= 560
    assert box.bounding_box()["width"] <= PHONE["viewport"]["width"]
    assert box.evaluate("(e) => e.scrollWidth > e.clientWidth")
    page.context.close()


def test_a_decision_tree_answer_leads_straight_to_its_fix(browser, site):
    """On a phone, tapping an answer at the end of diagnose's tree opens the fix itself, not the
    list under the tree. Material draws diagrams in a closed shadow root; the init script opens
    it so that the test can find the answer's link (what it renders is the same)."""
    page, watch = new_page(browser, site, **PHONE)
    page.add_init_script(
        "const attach = Element.prototype.attachShadow;"
        "Element.prototype.attachShadow = function (o) {"
        "  return attach.call(this, {...o, mode: 'open'});"
        "};"
    )
    goto(page, watch, site, "/diagnose/#which-fix")
    answer = page.locator(".mermaid a", has_text="A GAN's fake batch")
    answer.scroll_into_view_if_needed()
    answer.tap()
    expect(page).to_have_url(site.url + "/scenarios/gan/#fix-detach-fake")
    expect(page.locator("#fix-detach-fake")).to_be_in_viewport()
    page.context.close()
