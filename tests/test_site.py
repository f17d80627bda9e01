"""The built site's own promises: linkable headings, no other origin, live reload.

The checks that read only the sources (pins, heading ids, placeholders, the scenarios table,
the contract's own consistency) are in tests/test_sources.py, which `make check` runs too.
"""

import hashlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sitekit
import support
import yaml
from PIL import Image
from sitekit import build
from support import CONTRACT, broken_links, copy_project

MKDOCS = [sys.executable, "-m", "mkdocs"]


@pytest.fixture(scope="module")
def site(built_site) -> Path:
    return built_site


def test_pages_load_nothing_from_another_origin(site):
    remote = []
    for page in sorted(site.rglob("*.html")):
        remote += [
            f"{page.relative_to(site)}: {url}"
            for url in support.assets(page.read_text())
            if re.match(r"(https?:)?//", url)
        ]
    for css in sorted(site.rglob("*.css")):
        remote += [
            f"{css.relative_to(site)}: {u}"
            for u in re.findall(r"url\(['\"]?((?:https?:)?//[^)'\"]+)", css.read_text())
        ]
    assert not remote, "assets fetched from another origin:\n" + "\n".join(remote)


@pytest.fixture(scope="module")
def broken_build(tmp_path_factory) -> str:
    """What a --strict build of the project prints when one page has an external image and
    links to a missing anchor, a missing page and a missing anchor of its own: each guard's
    message must name its fault. The project is cut to that page and the one it links to (its
    links to the others are reported too, so the tests match each fault's own message)."""
    project = copy_project(
        tmp_path_factory.mktemp("broken"), pages=("index.md", "scenarios/gan.md")
    )
    page = project / "docs" / "index.md"
    page.write_text(
        page.read_text()
        + "\n![logo](https://example.com/logo.png)\n"
        + "\n[a](scenarios/gan.md#no-such-anchor) [b](no-such-page.md) [c](#nor-here)\n"
    )
    with pytest.raises(RuntimeError) as failed:
        build(project / "site", project=project)
    return str(failed.value)


def test_an_external_asset_fails_the_build(broken_build):
    """The privacy plugin with fetching off is the guard; prove it still trips."""
    assert "External file: https://example.com/logo.png" in broken_build


def test_a_broken_link_or_anchor_fails_the_build(broken_build):
    """mkdocs.yml's validation turns these into warnings, and --strict into failures."""
    for message in (
        "'scenarios/gan.md' does not contain an anchor '#no-such-anchor'",
        "link 'no-such-page.md', but the target is not found",
        "link '#nor-here', but there is no such anchor on this page",
    ):
        assert message in broken_build


def test_serve_rebuilds_when_a_snippet_changes(tmp_path):
    # The home page alone: serve rebuilds on a change under snippets/ whatever the pages are.
    project = copy_project(tmp_path, pages=("index.md",))
    port = support.free_port()
    url = f"http://127.0.0.1:{port}/"
    server = subprocess.Popen(
        [*MKDOCS, "serve", "--dev-addr", f"127.0.0.1:{port}"],
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        up = support.wait_for(lambda: "after the first backward" in support.get(url), 300)
        assert up, "mkdocs serve did not come up"
        # serve builds no PDF and no zip: a link to either would answer 404.
        served = support.get(url)
        assert ".pdf" not in served and ".zip" not in served
        snippet = project / "snippets/scenarios/backward-twice/second_backward_raises.py"
        snippet.write_text(
            snippet.read_text().replace("after the first backward", "edited while serving")
        )
        rebuilt = support.wait_for(lambda: "edited while serving" in support.get(url), 300)
        assert rebuilt, "a snippet change did not rebuild the site"
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_the_site_loads_the_offline_shim_only_offline(site):
    """The iframe-worker shim lets search run in the copy opened from disk (the offline zip's
    search test proves that copy works); over http it would only hold up the first paint."""
    pages = [
        str(p.relative_to(site)) for p in site.rglob("*.html") if "iframe-worker" in p.read_text()
    ]
    assert not pages, f"pages that load the offline shim online: {pages[:5]}"


def test_code_blocks_lose_only_spans_that_draw_nothing(site):
    """overrides/hooks/light_pages.py unwraps Pygments' name and whitespace spans to keep long
    pages light on a phone. That is invisible only while no stylesheet colours `.n` apart from
    the code's own colour or styles `.w` at all, and only if the code's text stays whole."""
    css = "".join(p.read_text() for p in site.glob("**/*.css"))
    names = set(re.findall(r"--md-code-hl-name-color:([^;}]+)", css))
    assert names == {"var(--md-code-fg-color)"}, f"a theme colours code names: {names}"
    styled = [
        f"{selectors}{{{body}}}"
        for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css)
        if re.search(r"\.w(?![\w-])", selectors)
        or (re.search(r"\.n(?![\w-])", selectors) and body != "color:var(--md-code-hl-name-color)")
    ]
    assert not styled, f"rules that style name or whitespace tokens: {styled}"

    page = site / "scenarios/hidden-cache/index.html"
    html = page.read_text()
    assert '<span class="n">' not in html and '<span class="w">' not in html
    script = support.ROOT / "snippets/scenarios/hidden-cache/distribution_built_once_raises.py"
    shown = [
        block.get_text()
        for block in support.soup(html).select(".highlight code")
        if "Bernoulli" in block.get_text()
    ]
    assert script.read_text() in shown, "the page's copy of the script lost or changed text"


def test_the_scripts_after_the_content_wait_for_the_first_paint(site):
    """Run before the first paint, the bundle delayed it by a second on a phone (light_pages.py);
    the browser tests prove the deferred bundle still brings search, copy and the palette."""
    # The print pages (the whole site's and the guide's) are print-site's own render, made for
    # printing, not for a phone's first paint.
    printed = {"print_page", Path(sitekit.GUIDE_PAGE).stem}
    pages = sorted(p for p in site.rglob("*.html") if p.parent.name not in printed)

    def scripts_block(page: Path) -> str:
        return page.read_text().partition('<script id="__config"')[2]

    blocking = [
        f"{page.relative_to(site)}: {tag}"
        for page in pages
        for tag in re.findall(r"<script src=[^>]*>", scripts_block(page))
        if " defer" not in tag
    ]
    assert not blocking, "scripts that block the first paint:\n" + "\n".join(blocking[:10])
    home = scripts_block(site / "index.html")
    assert re.search(r"bundle\.\w+\.min\.js\" defer", home), "no bundle where this test looks"


def test_the_print_pages_colour_only_comments_and_marked_lines(site):
    """Chromium tags every text node of a PDF it prints with bookmarks: a token coloured apart
    is a structure element of its own. With every token's colour the whole site's PDF weighed
    46 MB and took most of `make pdf`'s time to print (overrides/hooks/guide_page.py)."""
    for page in ("print_page", Path(sitekit.GUIDE_PAGE).stem):
        printed = (site / page / "index.html").read_text()
        code = " ".join(re.findall(r"<pre\b.*?</pre>", printed, re.S))
        tokens = set(re.findall(r'<span class="([^"]+)">', code))
        assert "c1" in tokens, f"{page}: no comment in its code: this check would prove nothing"
        assert tokens <= {"c", "c1", "cm", "ch", "cs", "sd", "hll"}, f"{page}: {tokens}"


def test_pages_with_a_diagram_bring_their_own_mermaid(site):
    """Without a local Mermaid, Material's bundle fetches one from a CDN when the page loads."""
    pages = [p for p in sorted(site.rglob("*.html")) if 'class="mermaid"' in p.read_text()]
    assert pages, "no page has a diagram: this check would prove nothing"
    lacking = [
        str(p.relative_to(site)) for p in pages if "javascripts/mermaid-" not in p.read_text()
    ]
    assert not lacking, f"diagram pages without the local Mermaid script: {lacking}"


def test_every_contracted_link_resolves(site):
    contract = yaml.safe_load(CONTRACT.read_text())
    problems = broken_links(site, contract)
    assert not problems, (
        "public links in docs/links.yml that no longer work (add a redirect, or keep the old "
        "id):\n" + "\n".join(problems)
    )


def test_every_heading_id_is_in_the_contract(nav):
    """Every id a built heading has, the generated pages' included (tests/test_sources.py
    checks the explicit ones in the sources, without a build)."""
    contract = yaml.safe_load(CONTRACT.read_text())
    missing = [
        f"{url}  {heading}:"
        for url, page in nav.items()
        for heading in page.headings
        if heading not in (contract.get(url) or {})
    ]
    assert not missing, "add these to docs/links.yml so they stay linkable:\n" + "\n".join(missing)


def test_the_forum_page_offers_every_fix(site):
    contract = yaml.safe_load(CONTRACT.read_text())
    html = (site / "forum" / "index.html").read_text()
    forum = support.soup(html).get_text()
    site_url = support.site_url().rstrip("/")
    fixes = [
        (url, a, text)
        for url, anchors in contract.items()
        if not isinstance(anchors, str)  # a moved page's old URL
        for a, text in (anchors or {}).items()
        if a.startswith("fix-")
    ]
    assert len(fixes) > 20
    # That every fix has a summary is checked from the sources (tests/test_sources.py).
    absent = [
        f"{url}#{a}"
        for url, a, text in fixes
        if f"Fix: {text} — {site_url}{url}#{a}" not in forum
        or f"[Fix: {text}]({site_url}{url}#{a})" not in forum
    ]
    assert not absent, f"fixes the forum page does not offer as text and as Markdown: {absent}"
    # A heading per page of fixes, each in the table of contents.
    pages = {url for url, a, text in fixes}
    toc = support.soup(html).select(".md-sidebar--secondary .md-nav__link")
    assert len(toc) >= len(pages), f"{len(toc)} entries in the table of contents"


def test_every_page_has_link_preview_tags(nav):
    site_url = support.site_url()
    problems = []
    for url, page in nav.items():
        wanted = [
            "description",
            "og:type",
            "og:site_name",
            "og:title",
            "og:description",
            "og:url",
            "twitter:card",
            "twitter:title",
            "twitter:description",
            "og:image",
            "twitter:image",
        ]
        problems += [f"{url}: no {name}" for name in wanted if not page.meta.get(name)]
        # Longer, a search result or a card cuts it off, and the fix it leads with may go.
        if len(page.meta.get("description") or "") > 160:
            problems.append(f"{url}: description of {len(page.meta['description'])} characters")
        if page.meta.get("twitter:card") != "summary_large_image":
            problems.append(f"{url}: twitter:card {page.meta.get('twitter:card')}")
        if (
            page.canonical != site_url.rstrip("/") + url
            or page.meta.get("og:url") != page.canonical
        ):
            problems.append(f"{url}: canonical {page.canonical} / og:url {page.meta.get('og:url')}")
        if page.meta.get("description") != page.meta.get("og:description"):
            problems.append(f"{url}: description attribute broken (a straight double quote?)")
    assert not problems, "\n".join(problems)


def test_every_page_has_its_own_link_card(site, nav):
    """The image a forum shows for a pasted link: drawn by the build (no network), one per page,
    at the size cards show whole, and no two pages alike."""
    site_url = support.site_url()
    problems, seen = [], {}
    for url, page in nav.items():
        image = page.meta.get("og:image") or ""
        if not image.startswith(site_url) or page.meta.get("twitter:image") != image:
            problems.append(
                f"{url}: og:image {image!r}, twitter:image {page.meta.get('twitter:image')!r}"
            )
            continue
        path = site / image.removeprefix(site_url)
        if not path.is_file():
            problems.append(f"{url}: {image} is not in the build")
            continue
        with Image.open(path) as card:
            if (card.format, card.size) != ("PNG", (1200, 630)):
                problems.append(f"{url}: {card.format} {card.size}")
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest in seen:
            problems.append(f"{url}: the same card as {seen[digest]}")
        seen[digest] = url
    assert not problems, "\n".join(problems)


# What only someone holding the repository can act on: a make target, a path in it, its venv.
BUILD_LANGUAGE = re.compile(
    r"\bmake (?:test|serve|bench|check|check-changed|build|pdf|offline|lint|bless|screenshots"
    r"|properdocs|clean|new-scenario)\b"
    r"|\b(?:snippets|docs|tests|scripts|overrides|tools)/[\w<>./-]+|\.venv\b"
)


def test_no_page_speaks_build_language_to_readers(site, nav):
    """Readers never see the repository: a page's prose names no make target and no path in
    it. Code blocks are what the reader runs or copies, and a link to another project's source
    (PyTorch's tools/autograd/...) is a citation: both are left out."""
    found = []

    def shown_to_run_or_cited(tag, classes, attrs):
        cited = tag == "a" and (attrs.get("href") or "").startswith("http")
        return tag == "pre" or cited or bool({"highlight", "mermaid"} & set(classes))

    for url in nav:
        html = (site / url.strip("/") / "index.html").read_text()
        text = support.prose(html, shown_to_run_or_cited)
        found += [
            f"{url}: ...{text[max(0, m.start() - 50) : m.end() + 20]}..."
            for m in BUILD_LANGUAGE.finditer(text)
        ]
    assert not found, "\n".join(found)


def test_sitemap_lists_every_page(site, nav):
    sitemap = (site / "sitemap.xml").read_text()
    site_url = support.site_url().rstrip("/")
    missing = [url for url in nav if f"<loc>{site_url}{url}</loc>" not in sitemap]
    assert not missing, f"pages missing from sitemap.xml: {missing}"


def test_search_ranks_wrong_fixes_below_the_rest_of_their_page(site):
    """A "Wrong fix" heading names what people type (retain_graph=True, requires_grad), so it
    would outrank its page's fix; overrides/hooks/search_wrong_fix_last.py lowers its boost."""
    docs = json.loads((site / "search" / "search_index.json").read_text())["docs"]
    wrong = [d for d in docs if re.search(r"#wrong-fix(-|$)", d["location"])]
    rest = [d for d in docs if d not in wrong]
    assert len(wrong) >= 30, f"only {len(wrong)} wrong-fix sections in the index"
    highest_wrong = max(d.get("boost", 1) for d in wrong)
    lowest_rest = min(d.get("boost", 1) for d in rest)
    assert highest_wrong * 100 <= lowest_rest, (highest_wrong, lowest_rest)


def test_search_indexes_the_names_in_code_not_the_code(site):
    """Every page downloads the search index: it holds no code block, no output and no diagram
    source (overrides/hooks/search_code.py marks them), and the names a reader types from the
    code instead, in the section that shows it."""
    docs = json.loads((site / "search" / "search_index.json").read_text())["docs"]
    text = " ".join(d["text"] for d in docs)
    assert "<pre>" not in text, "a code block or an output is in the search index"
    for sample in ("torch.manual_seed(0)", "flowchart TD", "Traceback (most recent call last)"):
        assert sample not in text, f"{sample!r}: code, a diagram or an output is in the index"
    section = next(
        d for d in docs if d["location"] == "libraries/deepxde/#case-neumann-bc-variable"
    )
    assert "dde.icbc.NeumannBC" in section["text"], section["text"][-500:]


def test_the_404_page_offers_search_and_working_links(site):
    page = (site / "404.html").read_text()
    assert 'for="__search"' in page
    links = re.findall(r'<li><a href="(/[^"#]*)#?([^"]*)"', page)
    assert len(links) >= 5
    contract = {url: {a: None} if a else {} for url, a in links}
    assert not broken_links(site, contract)


def test_moving_a_page_needs_a_redirect_that_keeps_its_anchors(tmp_path):
    """A move as CONTRIBUTING.md describes it; every step short of it fails, naming the URL."""
    project = copy_project(tmp_path)
    (project / "docs/scenarios/gan.md").rename(project / "docs/scenarios/gan-training.md")
    for page in (project / "docs").rglob("*.md"):
        page.write_text(re.sub(r"\bgan\.md\b", "gan-training.md", page.read_text()))
    config = project / "mkdocs.yml"
    config.write_text(config.read_text().replace("scenarios/gan.md", "scenarios/gan-training.md"))
    contract = yaml.safe_load(CONTRACT.read_text())
    moved = {
        ("/scenarios/gan-training/" if url == "/scenarios/gan/" else url): anchors
        for url, anchors in contract.items()
    }
    moved["/scenarios/gan/"] = "/scenarios/gan-training/"
    contract_file = project / "docs" / "links.yml"
    contract_file.write_text(yaml.safe_dump(moved, allow_unicode=True, sort_keys=False))
    out = tmp_path / "site"
    config.write_text(
        config.read_text().replace(
            "redirect_maps: {}", "redirect_maps: {scenarios/gan.md: scenarios/gan-training.md}"
        )
    )
    build(out, project=project)
    # The old URL still works, and every anchor of the page resolves at its new URL.
    assert broken_links(out, moved) == []
    assert "/scenarios/gan-training/#fix-detach-fake" in (out / "forum/index.html").read_text()
    # Without the redirect (the stub is all the redirect plugin writes: one build instead of
    # two), the old URL is reported, with the old contract and with the moved one.
    shutil.rmtree(out / "scenarios" / "gan")
    assert broken_links(out, contract) == ["/scenarios/gan/: no such page, and no redirect from it"]
    assert broken_links(out, moved) == ["/scenarios/gan/: no such page, and no redirect from it"]


def test_a_new_scenario_fails_the_suite_until_it_is_written(tmp_path):
    """`make new-scenario`, then `new_scenario.py --links` for the contract, as CONTRIBUTING.md
    says: the reproducer, the fix, the wrong fix and the placeholders all fail."""
    project = copy_project(tmp_path, extra=("tests", "scripts", "pyproject.toml"))
    name = "scaffold-under-test"
    names = ["--raises", "loss_reused_twice", "--fix", "one_backward_per_loss"]
    names += ["--wrong-fix", "retain_graph_everywhere"]
    for args in ([name, *names], ["--links"]):
        made = subprocess.run(
            [sys.executable, "scripts/new_scenario.py", *args],
            cwd=project,
            capture_output=True,
            text=True,
        )
        assert made.returncode == 0, made.stderr
    assert f"scenarios/{name}.md" in (project / "mkdocs.yml").read_text()
    contract = yaml.safe_load((project / "docs" / "links.yml").read_text())
    assert "fix-one-backward-per-loss" in contract[f"/scenarios/{name}/"], contract
    assert f"]({name}.md)" in (project / "docs" / "scenarios" / "index.md").read_text()
    suite = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"docs/scenarios/{name}.md",
            f"snippets/scenarios/{name}",
            "tests/test_sources.py::test_no_placeholders_are_left",
        ],
        cwd=project,
        capture_output=True,
        text=True,
    )
    summary = suite.stdout.strip().splitlines()[-1]
    # The three scripts (one test each, from the page that shows it) and the placeholder
    # check: nothing in the scaffold passes.
    assert suite.returncode == 1 and "passed" not in summary, suite.stdout[-2000:]
    assert re.match(r"4 failed\b", summary), suite.stdout[-2000:]


def test_the_site_serves_the_command_with_its_own_address(built_site):
    """The diagnose command, downloaded from the site, is the one file its parts make, and
    names the site it came from."""
    command = support.COMMAND
    served = (built_site / command.name).read_text()
    assert served == sitekit.command_source(site_url=support.site_url())
    assert f'SITE = "{support.site_url()}"' in served
    page = support.soup((built_site / "diagnose" / "index.html").read_text()).get_text()
    assert f"curl -O {support.site_url()}{command.name}" in page
