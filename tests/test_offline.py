"""The site for readers without a network: a PDF of everything, the guide's PDF (the site without
its real programs, which it lists in one index), and a zip that works from disk."""

import contextlib
import datetime
import html
import re
import subprocess
import tempfile
import urllib.parse
import zipfile
from pathlib import Path

import pytest
import sitekit
import support
from page_tour import COSTS_PLOTS, on_paper
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from support import ROOT

# Checked once for the whole session by conftest.py, before any test runs.
REQUIRES = ("chromium", "poppler-utils")
RESULTS_SHOWN = """
  /matching document/.test(document.querySelector(".md-search-result__meta").textContent)
"""
SITE_NAME = sitekit.load_config(ROOT)["site_name"]
PDF_NAME = sitekit.pdf_name(SITE_NAME)
GUIDE_NAME = sitekit.guide_pdf_name(SITE_NAME)
# Each PDF: its file, and whether it prints a page of the nav (its source file) whole.
EDITIONS = {
    "whole site": (PDF_NAME, lambda src: True),
    "guide": (GUIDE_NAME, sitekit.in_guide),
}
INCLUDE = re.compile(r'^--8<-- "(snippets/[^":]+)"', re.M)


# What the printed page showed (page_tour.on_paper), read while the PDF fixture had it open.
PAPER = {}


@pytest.fixture(scope="module")
def built(built_site, offline_site, browser, tour_over) -> Path:
    """`make pdf`'s PDF and offline zip, made as scripts/make_pdf.py makes them (sitekit's
    package()) from the session's builds, into the session's site: where CI publishes them.
    package() writes the files' sizes into every page, so not while the tour reads them."""
    sitekit.package(
        built_site, offline_site, browser, project=ROOT, look=lambda p: PAPER.update(on_paper(p))
    )
    return built_site


@pytest.fixture(scope="module", params=EDITIONS)
def edition(request) -> str:
    """Each check of a PDF runs on both: the whole site's and the guide's."""
    return request.param


@pytest.fixture(scope="module")
def pdf(built, edition) -> Path:
    return built / "pdf" / EDITIONS[edition][0]


@pytest.fixture(scope="module")
def guide(built) -> Path:
    return built / "pdf" / GUIDE_NAME


def _printed_pages(edition: str) -> list[str]:
    """The nav's source files that the edition prints whole, in nav order."""
    printed = EDITIONS[edition][1]
    return [src for _, src in sitekit.nav_pages(support.config()["nav"]) if printed(src)]


def _shown_whole(sources, guide: bool = False) -> set[Path]:
    """The snippets that these pages show whole (in the guide: outside what it leaves out)."""
    found = set()
    for src in sources:
        text = (ROOT / "docs" / src).read_text()
        if guide:
            text = sitekit.GUIDE_SKIP.sub("", text)
        found |= {ROOT / s for s in INCLUDE.findall(text)}
    return found


def _pages(pdf: Path) -> int:
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    return int(re.search(r"^Pages:\s+(\d+)", info.stdout, re.M).group(1))


def _text(pdf: Path, *args) -> str:
    return subprocess.run(
        ["pdftotext", *args, str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout


def _squash(text: str) -> str:
    """Without whitespace: wrapped lines and justified text compare equal."""
    return re.sub(r"\s+", "", text)


def _outline_xml(pdf: Path) -> str:
    """poppler's XML of the PDF: its text boxes, links and bookmarks."""
    return subprocess.run(
        ["pdftohtml", "-xml", "-i", "-q", "-stdout", str(pdf)], capture_output=True, text=True
    ).stdout


def _bookmarks(pdf: Path) -> list[tuple[int, str]]:
    outline = _outline_xml(pdf)
    return [
        (int(page), html.unescape(text))
        for page, text in re.findall(r'<item page="(\d+)">([^<]+)</item>', outline)
    ]


def test_pdf_opens_with_pages_and_bookmarks(pdf):
    assert _pages(pdf) > 1
    titles = [text for _, text in _bookmarks(pdf)]
    assert "Contents" in titles and len(titles) > 50, titles[:10]


def test_no_buttons_on_paper(built):
    """The page Chromium prints to the PDF, in print media: no copy or download button shows,
    neither Material's nor the notebook's."""
    assert PAPER["buttons"] > 10, "no buttons found on the print page: the test looks wrong"
    assert PAPER["buttons_on_screen"], "no button shows on screen either: the test looks wrong"
    assert PAPER["buttons_printed"] == PAPER["buttons"]
    assert not PAPER["printed"], "buttons printed on paper:\n" + "\n".join(PAPER["printed"])


def test_paper_shows_the_light_costs_plot_in_either_scheme(built):
    """From either colour scheme the printed page shows the plot drawn for the light one alone:
    Material prints the dark scheme in the light one's colours."""
    assert PAPER["plots"] == len(COSTS_PLOTS)
    for scheme, shown in PAPER["plots_printed"].items():
        assert shown == [COSTS_PLOTS["light"]], f"printed from the {scheme} scheme: {shown}"


def test_title_page_names_site_torch_and_date(pdf):
    first = _text(pdf, "-f", "1", "-l", "1")
    torch = re.search(r"^torch==(\S+)", (ROOT / "requirements.txt").read_text(), re.M).group(1)
    assert "Backward Twice" in first
    assert f"PyTorch {torch}" in first
    # The build may have started the day before (a run across midnight).
    days = [datetime.date.today() - datetime.timedelta(days=n) for n in (0, 1)]
    assert any(day.isoformat() in first for day in days), first


def test_every_page_is_bookmarked_in_nav_order(pdf, nav, edition):
    """Each page the PDF prints, in nav order; in the guide, the index of the real programs
    stands where the first program page stood."""
    marks = [(page, _squash(text)) for page, text in _bookmarks(pdf)]
    printed = _printed_pages(edition)
    titles = []
    for _, src in sitekit.nav_pages(support.config()["nav"]):
        if src in printed:
            titles.append(nav[sitekit.url_of(src)].h1)
        elif sitekit.PROGRAM_PAGES.fullmatch(src) and sitekit.GUIDE_INDEX_TITLE not in titles:
            titles.append(sitekit.GUIDE_INDEX_TITLE)
    at, missing, pages = 0, [], []
    for title in map(_squash, titles):
        found = next((i for i in range(at, len(marks)) if marks[i][1] == title), None)
        if found is None:
            missing.append(title)
        else:
            at = found + 1
            pages.append(marks[found][0])
    assert not missing, f"pages missing from the PDF's bookmarks, or out of nav order: {missing}"
    assert pages == sorted(pages)


def test_every_page_links_the_pdfs_it_was_built_with(built):
    """The Download PDF buttons and make pdf each name the files; they must name the same ones."""
    wrong = []
    for page in sorted(built.rglob("index.html")):
        html_text = page.read_text()
        for title, name in (("Download PDF", PDF_NAME), ("Download the guide (PDF)", GUIDE_NAME)):
            links = re.findall(rf'<a href="([^"]+)" title="{re.escape(title)}"', html_text)
            target = built / "pdf" / name
            if not links or (page.parent / links[0]).resolve() != target.resolve():
                wrong.append(f"{page.relative_to(built)}: {title}: {links}")
    assert not wrong, f"pages whose Download PDF buttons miss their file: {wrong[:5]}"


def test_every_diagram_is_drawn_in_the_pdf(pdf, edition):
    """Mermaid draws in the browser; if it did not run before printing, the PDF shows source."""
    text = _squash(_text(pdf))
    sources = [
        block
        for src in _printed_pages(edition)
        for block in re.findall(r"```mermaid\n(.*?)```", (ROOT / "docs" / src).read_text(), re.S)
    ]
    assert sources, "no diagram on any page: this check would prove nothing"
    problems = []
    for source in sources:
        first = source.strip().splitlines()[0]
        if _squash(first) in text:
            problems.append(f"diagram source printed as text: {first!r}")
        labels = [html.unescape(label) for label in re.findall(r'[\[({]"([^"<]+)', source)]
        problems += [f"not drawn: {label!r}" for label in labels if _squash(label) not in text]
    assert not problems, "\n".join(problems)


def test_pages_are_numbered(pdf):
    assert re.search(r"Page\s+2\b", _text(pdf, "-f", "2", "-l", "2"))


def _identified() -> dict[Path, str | None]:
    from snippet_harness.identify import identifying_lines

    return identifying_lines(sorted((ROOT / "snippets").rglob("*.py")))


def test_pdf_has_every_snippet(pdf, edition):
    """Each snippet that a page it prints shows whole (the whole site: every snippet) has its
    own line (or run of lines) in the PDF: its first line would prove little, nearly every
    snippet starts with `import torch`."""
    text = _squash(_text(pdf))
    wanted = _shown_whole(_printed_pages(edition), guide=True) if edition == "guide" else None
    missing = [
        str(path.relative_to(ROOT))
        for path, run in _identified().items()
        if (wanted is None or path in wanted) and (run is None or not _printed(run, text))
    ]
    assert not missing, f"snippets not in the PDF: {missing}"


def test_the_guide_prints_no_real_program(guide):
    """A script that only the program pages show is in the whole site's PDF, not the guide's."""
    text = _squash(_text(guide))
    pages = [src for _, src in sitekit.nav_pages(support.config()["nav"])]
    programs = _shown_whole(p for p in pages if sitekit.PROGRAM_PAGES.fullmatch(p))
    programs -= _shown_whole(p for p in pages if sitekit.in_guide(p))
    assert len(programs) > 50, "few program scripts found: this check would prove little"
    found = _identified()
    printed = [str(p.relative_to(ROOT)) for p in sorted(programs) if _printed(found[p], text)]
    assert not printed, f"real programs printed in the guide: {printed}"


def test_the_guide_indexes_every_real_program(guide):
    """Each program section of the program pages is a row of the guide's index: its title, and
    a link to it on the site."""
    # In the order Chromium wrote it: by layout, a title's wrapped lines and the library cell
    # beside them interleave.
    text = _squash(_text(guide, "-raw"))
    links = set(re.findall(r'<a href="([^"]*)"', _outline_xml(guide)))
    site = support.config()["site_url"].rstrip("/")
    rows = []
    for _, src in sitekit.nav_pages(support.config()["nav"]):
        if sitekit.PROGRAM_PAGES.fullmatch(src):
            markdown = (ROOT / "docs" / src).read_text()
            for title, anchor in re.findall(
                r"^#{2,6} (.+?) \{ #((?:case|program|expert)-[\w-]+) \}", markdown, re.M
            ):
                rows.append((title.replace("`", ""), f"{site}{sitekit.url_of(src)}#{anchor}"))
    assert len(rows) > 50, "few programs found: this check would prove little"
    missing = [title for title, _ in rows if _squash(html.unescape(title)) not in text]
    unlinked = [url for _, url in rows if url not in links]
    assert not missing, f"programs missing from the guide's index: {missing}"
    assert not unlinked, f"programs the index does not link on the site: {unlinked}"


def _printed(run: str, text: str, window: int = 600) -> bool:
    """True if the run's code and comments are in the text in order, close together: the
    PDF's text may give a comment, or a blank line's neighbour, a few lines away."""
    pieces = []
    for line in run.split("\n"):
        code, _, comment = line.partition("  #")
        pieces += [p for p in (_squash(code), comment and _squash("#" + comment)) if p]
    start = text.find(pieces[0])
    while start >= 0:
        at = start + len(pieces[0])
        for piece in pieces[1:]:
            at = text.find(piece, at, start + window)
            if at < 0:
                break
            at += len(piece)
        else:
            return True
        start = text.find(pieces[0], start + 1)
    return False


def test_no_line_runs_past_the_text_area(pdf):
    """A code line cut off at the page edge would stick out of the margins."""
    pages = re.findall(
        r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>', _text(pdf, "-bbox"), re.S
    )
    words = [
        (int(n), float(x0), float(x1), float(w), word)
        for n, (w, h, body) in enumerate(pages, 1)
        for x0, y0, x1, word in re.findall(
            r'xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)"[^>]*>([^<]*)<', body
        )
        if float(y0) < float(h) - 60  # the page number sits in the bottom margin
    ]
    left = min(x0 for _, x0, _, _, _ in words)  # margins are symmetric
    outside = [(n, word) for n, _, x1, width, word in words if x1 > width - left + 1]
    assert not outside, f"text beyond the right margin (page, word): {outside[:10]}"


def test_the_offline_zip_finds_retain_graph_from_disk(built, browser):
    archive = built / "offline" / sitekit.offline_zip_name(SITE_NAME)
    with tempfile.TemporaryDirectory() as tmp:
        zipfile.ZipFile(archive).extractall(tmp)
        index = next(Path(tmp).glob("*/index.html"))
        for name in (PDF_NAME, GUIDE_NAME):
            assert (index.parent / "pdf" / name).is_file(), f"the zip lacks {name}"
        page = browser.new_page()
        page.goto(index.as_uri() + "?q=retain_graph")
        # Search from disk runs in an iframe worker; give it the time the old CLI run had.
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_function(RESULTS_SHOWN, timeout=15_000)
        dom = page.content()
        page.close()
    found = re.search(r'md-search-result__meta">(\d+) matching documents?<', dom)
    assert found and int(found.group(1)) > 0, "search found nothing in the copy opened from disk"


def test_links_between_pages_jump_inside_the_pdf(pdf):
    xml = _outline_xml(pdf)
    links = re.findall(r'<a href="([^"]*)"', xml)
    inside = [link for link in links if re.fullmatch(re.escape(pdf.stem) + r"\.html#\d+", link)]
    stray = [
        link
        for link in links
        if link not in inside and not link.startswith(("https://", "http://"))
    ]
    assert len(inside) > 100, f"only {len(inside)} links jump to a page of the PDF"
    assert not stray, f"links that lead out of the PDF to local files: {stray[:5]}"


def test_every_link_leads_somewhere_and_the_downloads_say_their_size(built):
    """After `make pdf`, every link on every page leads to a file the site serves (the PDFs and
    the zip linked from the footer and the home page included), and those links give the size
    of the file they download, and a PDF's pages (as poppler counts them)."""
    broken, labelled = [], {}
    sizes = {
        "pdf": built / "pdf" / PDF_NAME,
        "guide": built / "pdf" / GUIDE_NAME,
        "zip": built / "offline" / sitekit.offline_zip_name(SITE_NAME),
    }
    for page in sorted(built.rglob("*.html")):
        hrefs, sized = support.links(page.read_text())
        for href in hrefs:
            parts = urllib.parse.urlsplit(href)
            if parts.scheme or parts.netloc or not parts.path:
                continue
            path = urllib.parse.unquote(parts.path)
            # The 404 page links from the site's root: it is served at any depth.
            target = built / path.lstrip("/") if path.startswith("/") else page.parent / path
            if not (target.is_file() or (target / "index.html").is_file()):
                broken.append(f"{page.relative_to(built)}: {href}")
        for key, text in sized:
            labelled.setdefault(key, set()).add(text)
    assert not broken, "links to nothing:\n" + "\n".join(broken)
    pages = {key: f"{_pages(path):,} pages, " for key, path in sizes.items() if key != "zip"}
    expected = {
        key: {f" ({pages.get(key, '')}{path.stat().st_size / 1e6:.1f} MB)"}
        for key, path in sizes.items()
    }
    assert labelled == expected
    home = support.soup((built / "index.html").read_text()).select_one(".md-content")
    assert {slot["data-bt-size"] for slot in home.select("[data-bt-size]")} == set(sizes)
