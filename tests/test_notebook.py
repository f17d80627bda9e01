"""The walkthrough notebook ends every cell as documented, and its page shows what it really does.

Checked the way the snippet harness checks a page: the one cell tagged `raises-exception` raises
the exact error, every other cell succeeds, and the outputs saved in the .ipynb (what GitHub and a
downloaded copy show) are the outputs the code prints now. The build also runs the notebook, with
`allow_errors: false`, so an unexpected error anywhere fails it; the built page is checked here for
its download link, its search entries, its scripts, its heading ids, its description, and the
notebook's links into the site. That every heading of the notebook has an explicit id is
checked from the sources, in tests/test_sources.py.
"""

import copy
import json
import re
import urllib.parse
from pathlib import Path

import nbformat
import pytest
import support
from nbclient import NotebookClient
from support import ROOT, broken_links, parse_page

NOTEBOOK = ROOT / "docs" / "notebooks" / "walkthrough.ipynb"
PAGE = Path("notebooks") / "walkthrough" / "index.html"
TAG = "raises-exception"
MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)
# A path of the machine that ran the notebook, which means nothing to a reader.
LOCAL_PATH = re.compile(r"(?<![\w.])/(?:work|root|tmp|home|Users|usr|opt|var|private)/|[A-Z]:\\")


def code_cells(nb):
    return [cell for cell in nb.cells if cell.cell_type == "code"]


def tagged(cell) -> bool:
    return TAG in cell.metadata.get("tags", [])


def errors(cell):
    return [(o.ename, o.evalue) for o in cell.outputs if o.output_type == "error"]


def streams(cell):
    """Printed text per stream; Jupyter may split or join a stream's chunks when it saves."""
    merged = []
    for o in cell.outputs:
        if o.output_type == "stream":
            if merged and merged[-1][0] == o.name:
                merged[-1] = (o.name, merged[-1][1] + o.text)
            else:
                merged.append((o.name, o.text))
    return merged


def texts(nb):
    for cell in code_cells(nb):
        for o in cell.outputs:
            if o.output_type == "stream":
                yield cell.id, o.text
            elif o.output_type == "error":
                yield cell.id, "\n".join([o.evalue, *o.traceback])
            else:
                for value in o.get("data", {}).values():
                    yield cell.id, value if isinstance(value, str) else json.dumps(value)


@pytest.fixture(scope="module")
def stored():
    return nbformat.read(NOTEBOOK, as_version=4)


@pytest.fixture(scope="module")
def fresh(stored):
    """The notebook run now, as the build runs it: an error in an untagged cell stops it."""
    nb = copy.deepcopy(stored)
    client = NotebookClient(
        nb,
        kernel_name="python3",
        timeout=300,
        allow_errors=False,
        record_timing=False,
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    client.execute()
    return nb


def test_exactly_one_cell_is_documented_to_raise(stored):
    assert [cell.id for cell in code_cells(stored) if tagged(cell)] == ["reproduce"]
    assert not [cell.id for cell in stored.cells if cell.cell_type != "code" and tagged(cell)]


def test_that_cell_raises_the_exact_error(fresh, stored):
    for nb in (fresh, stored):
        (cell,) = [cell for cell in code_cells(nb) if tagged(cell)]
        assert errors(cell) == [("RuntimeError", MESSAGE)]
        (error,) = [o for o in cell.outputs if o.output_type == "error"]
        # %xmode Minimal: the error line alone, no frames.
        assert len(error.traceback) == 1 and "Traceback" not in error.traceback[0]


def test_every_other_cell_succeeds(fresh):
    others = [cell for cell in code_cells(fresh) if not tagged(cell)]
    assert not {cell.id: errors(cell) for cell in others if errors(cell)}
    warned = [cell.id for cell in others if any(name == "stderr" for name, _ in streams(cell))]
    assert not warned, f"cells writing to stderr (warnings?): {warned}"


def test_stored_outputs_are_what_the_code_prints(fresh, stored):
    """Save the notebook after running it top to bottom, or this fails."""
    differ = [
        f"cell {old.id}:\n  stored: {streams(old)}\n  now:    {streams(new)}"
        for old, new in zip(code_cells(stored), code_cells(fresh), strict=True)
        if streams(old) != streams(new) or errors(old) != errors(new)
    ]
    assert not differ, "\n".join(differ)


def test_no_output_shows_a_local_path(fresh, stored):
    leaks = [
        f"cell {cell_id}: {LOCAL_PATH.search(text).group(0)!r} in {text[:200]!r}"
        for nb in (stored, fresh)
        for cell_id, text in texts(nb)
        if LOCAL_PATH.search(text) or str(ROOT) in text or str(Path.home()) in text
    ]
    assert not leaks, "\n".join(leaks)


@pytest.fixture(scope="module")
def site(built_site) -> Path:
    return built_site


def test_the_page_offers_the_notebook_for_download(site):
    page = site / PAGE
    links = re.findall(r'<a href="([^"#]+\.ipynb)"', page.read_text())
    assert links, "no link to the .ipynb on the notebook page"
    for link in links:
        target = page.parent / link
        assert target.is_file(), f"{link}: not in the built site (include_source: true?)"
        assert target.read_bytes() == NOTEBOOK.read_bytes()


def test_the_page_shows_the_error_that_search_leaves_out(site):
    assert MESSAGE in (site / PAGE).read_text()
    index = json.loads((site / "search" / "search_index.json").read_text())
    entries = [e for e in index["docs"] if e["location"].startswith("notebooks/walkthrough/")]
    assert entries, "the notebook page is not in the search index"
    found = [e["location"] for e in entries if "Saved intermediate values" in e["text"]]
    assert not found, f"the notebook's traceback is in the search index: {found}"
    assert not [e["location"] for e in entries if re.search(r"In \[\d+\]:|Copied!", e["text"])]


def test_the_page_loads_and_names_no_cdn(site):
    html = (site / PAGE).read_text()
    sources = [tag["src"] for tag in support.soup(html).find_all("script", src=True)]
    assert "" not in sources, 'an empty <script src=""> (MathJax without custom_mathjax_url)'
    remote = [s for s in sources if re.match(r"(https?:)?//", s)]
    assert not remote, f"scripts from another origin: {remote}"
    named = sorted(set(re.findall(r"https?://(?:cdnjs|cdn|unpkg)[\w.-]*/[^\"' )]*", html)))
    assert not named, f"CDN addresses in the page, loaded on some condition: {named}"


def test_the_page_keeps_the_explicit_heading_ids(site, stored):
    wanted = [
        m.group(1)
        for cell in stored.cells
        if cell.cell_type == "markdown"
        for m in re.finditer(r'^#{1,6} .* <a id="([a-z0-9-]+)"></a>$', cell.source, re.M)
    ]
    page = parse_page((site / PAGE).read_text())
    assert page.headings == wanted
    # The table of contents and the headings' own permalinks.
    targets = set(re.findall(r'href="#([^"]+)"', (site / PAGE).read_text()))
    assert not targets - page.ids, f"links to no element on the page: {targets - page.ids}"


def test_every_link_into_the_site_resolves(site):
    """The notebook links to the site by absolute URL, which a downloaded copy needs and which
    neither MkDocs' link validation nor the offline test follows."""
    site_url = support.site_url()
    links = re.findall(re.escape(site_url) + r"[^\s\\\"'<>()\[\]]*", NOTEBOOK.read_text())
    assert len(links) > 3, "no links into the site found: this check would prove nothing"
    root = urllib.parse.urlsplit(site_url).path
    contract = {}
    for link in links:
        parts = urllib.parse.urlsplit(link)
        anchors = contract.setdefault("/" + parts.path.removeprefix(root), {})
        if parts.fragment:
            anchors[parts.fragment] = None
    problems = broken_links(site, contract)
    assert not problems, "links in the notebook that do not resolve:\n" + "\n".join(problems)


def test_the_page_has_its_own_description(site, stored):
    """Link previews: the notebook's metadata feeds the page's description, as front matter does."""
    description = stored.metadata["mkdocs"]["description"]
    site_description = support.config()["site_description"]
    assert description and description != site_description
    meta = parse_page((site / PAGE).read_text()).meta
    for name in ("description", "og:description", "twitter:description"):
        assert meta.get(name) == description, name
