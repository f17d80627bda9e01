"""Checks that read only the sources: no build, no browser, so `make check` runs them too and a
contributor learns of a TODO left, a heading without an id or a link missing from the contract
in seconds. The built site is checked against the same contract in tests/test_site.py.
"""

import re

import nbformat
import pytest
import sitekit
import support
import yaml
from support import CONTRACT, ROOT

DOCS = ROOT / "docs"
NOTEBOOK_HEADING = re.compile(r'^#{1,6} .* <a id="([a-z0-9-]+)"></a>$', re.M)


def markdown_headings(page) -> list[tuple[int, str, str | None]]:
    """(line number, line, explicit id or None) of every heading of a Markdown page, outside
    fences and front matter."""
    lines = page.read_text().splitlines()
    # Front matter is YAML, where "# " starts a comment.
    start = lines.index("---", 1) + 1 if lines and lines[0] == "---" else 0
    headings, in_fence = [], False
    for n, line in enumerate(lines[start:], start + 1):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        elif not in_fence and re.match(r"#{1,6} ", line):
            explicit = re.search(r"\{ #([a-z0-9-]+) \}$", line)
            headings.append((n, line, explicit.group(1) if explicit else None))
    return headings


def notebook_cells(path):
    return nbformat.read(path, as_version=4).cells


def contract() -> dict:
    return yaml.safe_load(CONTRACT.read_text())


def nav_sources() -> dict[str, str]:
    """{public URL: source file under docs/} of every page in the nav."""
    nav = support.config()["nav"]
    return {sitekit.url_of(src): src for _, src in sitekit.nav_pages(nav)}


@pytest.mark.parametrize("name", ["requirements.txt", "requirements-gallery.txt"])
def test_every_requirement_is_pinned(name):
    loose = [
        line
        for line in (ROOT / name).read_text().splitlines()
        if line.strip()
        and not line.startswith("#")
        # the project's own package, installed editable, and the gallery's file
        and line not in ("-e ./tools", "-r requirements-gallery.txt")
        and not re.fullmatch(r"[\w.\-\[\]]+==[\w.+]+", line)
    ]
    assert not loose, f"{name} must pin exact versions: {loose}"


def test_every_heading_has_a_stable_id():
    """Forum answers link to headings; an id derived from the wording breaks when it changes."""
    missing = [
        f"{page.relative_to(ROOT)}:{n}: {line}"
        for page in sorted(DOCS.rglob("*.md"))
        for n, line, explicit in markdown_headings(page)
        if explicit is None
    ]
    assert not missing, "headings without an explicit { #id }:\n" + "\n".join(missing)


def test_every_notebook_heading_has_an_explicit_id():
    """As on the Markdown pages: a link to a heading must survive a reworded heading."""
    missing = [
        f"{path.relative_to(ROOT)}: {line}"
        for path in sorted(DOCS.rglob("*.ipynb"))
        for cell in notebook_cells(path)
        if cell.cell_type == "markdown"
        for line in cell.source.splitlines()
        if re.match(r"#{1,6} ", line) and not re.search(r' <a id="[a-z0-9-]+"></a>$', line)
    ]
    assert not missing, f'headings without an <a id="..."></a> at their end: {missing}'


def test_every_heading_id_is_in_the_contract():
    """The built site's check (tests/test_site.py) sees every id a page ends up with; this one
    sees the explicit ones in the sources, in seconds."""
    links = contract()
    missing = []
    for url, src in nav_sources().items():
        path = DOCS / src
        if path.suffix == ".md":
            ids = [explicit for _, _, explicit in markdown_headings(path) if explicit]
        else:
            ids = [
                m.group(1)
                for cell in notebook_cells(path)
                if cell.cell_type == "markdown"
                for m in NOTEBOOK_HEADING.finditer(cell.source)
            ]
        missing += [f"{url}  {id_}:" for id_ in ids if id_ not in (links.get(url) or {})]
    assert not missing, "add these to docs/links.yml so they stay linkable:\n" + "\n".join(missing)


def test_every_contracted_page_has_a_source_or_a_redirect():
    links, sources = contract(), nav_sources()
    plugins = support.config()["plugins"]
    redirects = next(
        (p["redirects"].get("redirect_maps") or {} for p in plugins if "redirects" in p), {}
    )
    problems = []
    for url, anchors in links.items():
        if isinstance(anchors, str):  # a moved page: its new URL must be in the contract too
            if anchors not in links:
                problems.append(f"{url}: moved to {anchors}, which is not in the contract")
            if sitekit.source_of(url, []) not in redirects:
                problems.append(f"{url}: moved, but mkdocs.yml has no redirect from it")
        elif url not in sources and url.endswith("/"):  # a file's URL: the built site's test
            problems.append(f"{url}: no page in mkdocs.yml's nav has this URL")
    assert not problems, "\n".join(problems)


def test_every_fix_has_a_one_line_summary():
    """The forum page offers each fix with its summary (tests/test_site.py checks it does)."""
    fixes = [
        (url, a, text)
        for url, anchors in contract().items()
        if not isinstance(anchors, str)  # a moved page's old URL
        for a, text in (anchors or {}).items()
        if a.startswith("fix-")
    ]
    assert len(fixes) > 20
    unlabelled = [f"{url}#{a}" for url, a, text in fixes if not text]
    assert not unlabelled, f"fixes without a one-line summary in docs/links.yml: {unlabelled}"


def test_no_placeholders_are_left():
    """`make new-scenario` writes TODO everywhere a human must write something real."""
    places = [*sorted(DOCS.rglob("*.md")), CONTRACT, ROOT / "mkdocs.yml"]
    left = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in places
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if "TODO" in line
    ]
    assert not left, f"placeholders left: {left}"


def test_the_scenario_table_lists_every_scenario_page():
    table = (DOCS / "scenarios" / "index.md").read_text()
    pages = sorted(p.name for p in (DOCS / "scenarios").glob("*.md") if p.stem != "index")
    missing = [name for name in pages if f"]({name})" not in table]
    assert not missing, f"scenario pages missing from docs/scenarios/index.md's table: {missing}"
