"""MkDocs hook: the guide's print page, which `make pdf` prints as the guide PDF.

The whole site's PDF grew past a thousand pages, most of them the real programs' reductions.
The guide is the same print page (print-site's, with its cover, contents and bookmarks) without
the pages sitekit.in_guide() leaves out, and with one index of the real programs where the
first program page stands in the nav: each program's title, its library, the fix its page
gives (a link to that fix on the fix page, inside the PDF) and a link to it on the site.

- The programs come from the program pages' Markdown: every heading whose id starts with
  `case-`, `program-` or `expert-`. Its library is the page's (a page by library), else the
  section's "Library:" line, else its source's repository, else PyTorch itself; its fix is the
  family that docs/diagnose/expected.yml gives the first script the section shows.
- print-site renders the guide the way it renders its own page (on_post_build, run a second
  time with the guide's page and nav), so the guide's contents list and anchors are its own.
- A link from a guide page into a page the guide leaves out lands on that program's index row
  when it names a program, and otherwise leads to the page on the site.
- A part of a page marked with sitekit.GUIDE_SKIP's comments is left out, with a link to it
  on the site (the diagnose command's code: about 35 pages).
- Its code prints in one colour, but for comments and the highlighted lines. Chromium makes a
  tagged PDF (its bookmarks come from the tags) with an element for every coloured token, about
  220 bytes each: with every token's colour the guide weighed 18.6 MB, without 6.2 MB, and it
  prints in a third of the time. So does the whole site's print page (print-site's own): its
  152,000 tokens were 35 of its PDF's 46 MB, and printing it took longer than `make pdf`'s
  60 s goal leaves it (1,158 pages: 46 MB and 56 s with every colour, 12 MB and 20 s without).
"""

import html
import re
import types
from pathlib import Path

import sitekit
import yaml
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

PROGRAM_HEADING = re.compile(r"^(#{2,6}) (.+?) \{ #((?:case|program|expert)-[\w-]+) \}\s*$", re.M)
HEADING = re.compile(r"^(#{1,6}) ", re.M)
INCLUDE = re.compile(r'^--8<-- "([^":]+)"', re.M)
LIBRARY_LINE = re.compile(r"\bLibrary: (.+?)(?= \d| \(|[,.](?:\s|$))")
SOURCE_REPO = re.compile(r"Source: <https://github\.com/[^/]+/([^/>]+)")
ANCHOR_LINK = re.compile(r'href="#([^"]*)"')
ROW_ANCHOR = re.compile(r'data-bt-anchor="([^"]*)"')
CODE_BLOCK = re.compile(r"<pre\b.*?</pre>", re.S)
# A Pygments token of a code block, but a comment or a highlighted line (hl_lines): those keep
# their colour. Tokens are never nested, so a token's text holds no tag.
PLAIN_TOKEN = re.compile(r'<span(?: class="(?!hll"|c1?"|cm"|ch"|cs"|sd")[^"]*")?>([^<]*)</span>')
GUIDE_MARK = '<div id="print-site-page" class="bt-guide '
GUIDE_TITLE = "Trying to backward through the graph a second time: the guide"

_programs: dict[str, list[dict]] = {}  # program page's source: its programs, in page order
_pages: dict[str, Page] = {}  # every page's source: the page


def on_config(config):
    _programs.clear()
    _pages.clear()


def on_page_markdown(markdown, page, config, files):
    _pages[page.file.src_uri] = page
    if sitekit.PROGRAM_PAGES.fullmatch(page.file.src_uri):
        _programs[page.file.src_uri] = programs_of(markdown, page, config)
    return markdown


def programs_of(markdown: str, page: Page, config) -> list[dict]:
    """Each program section of a program page: title, id, library, fix family."""
    expected = _expected(config)
    own_library = page.file.src_uri.startswith("libraries/") and page.title
    found = []
    for m in PROGRAM_HEADING.finditer(markdown):
        level = len(m.group(1))
        end = next(
            (h.start() for h in HEADING.finditer(markdown, m.end()) if len(h.group(1)) <= level),
            len(markdown),
        )
        body = markdown[m.end() : end]
        library = LIBRARY_LINE.search(body)
        repo = SOURCE_REPO.search(body)
        scripts = [s for s in INCLUDE.findall(body) if s in expected]
        if not scripts:
            raise PluginError(
                f"{page.file.src_uri}: the program section #{m.group(3)} shows no script that "
                "docs/diagnose/expected.yml lists: the guide's index cannot name its fix"
            )
        found.append(
            {
                "title": m.group(2),
                "id": m.group(3),
                "library": own_library
                or (library and library.group(1))
                or (repo and repo.group(1))
                or "PyTorch",
                "family": expected[scripts[0]]["family"],
            }
        )
    return found


def _expected(config) -> dict:
    path = Path(config["docs_dir"]) / "diagnose" / "expected.yml"
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _inline(markdown: str) -> str:
    """A heading's Markdown as HTML: code spans, the rest escaped."""
    parts = markdown.split("`")
    return "".join(
        f"<code>{html.escape(p)}</code>" if i % 2 else html.escape(p) for i, p in enumerate(parts)
    )


def index_html(config, index_url: str) -> str:
    """The index of every program page's programs, grouped by page, in nav order. Its links
    are relative to `index_url` (print-site turns those into anchors of the PDF) or absolute
    (to the site); each row carries the anchor its program has in the whole site's print page,
    so that links to it from the guide's pages land on the row."""
    from mkdocs_print_site_plugin.urls import get_page_key

    fix = _pages["fix.md"]
    site = config["site_url"].rstrip("/") + "/"
    out = [
        f'<h1 id="top">{sitekit.GUIDE_INDEX_TITLE}</h1>',
        "<p>The site diagnoses real programs, reduced from public bug reports or run on the "
        "library itself: their code, their output and the proof of each fix are on the site, "
        "and in the PDF of the whole site. Here each one has its title, its library, the fix "
        "it needs (one of the five on the fix page) and its link on the site.</p>",
    ]
    for src in _program_pages(config):
        page, programs = _pages[src], _programs[src]
        if not programs:
            continue
        online = site + sitekit.url_of(src).lstrip("/")
        # The page's own anchor, but for the page whose place the index takes (it has it).
        key = get_page_key(page.url)
        anchor = f' data-bt-anchor="{key}"' if page.url != index_url else ""
        out.append(
            f"<h2{anchor}>{html.escape(page.title)}</h2>"
            f'<p>On the site: <a href="{online}">{online}</a></p>'
        )
        out.append(
            '<table class="bt-program-index"><thead>'
            "<tr><th>Program</th><th>Library</th><th>Fix</th></tr></thead>"
        )
        out.append("<tbody>")
        for p in programs:
            family = p["family"]
            fix_cell = (
                f'<a href="{get_relative_url(fix.url, index_url)}#{family}">{family}</a>'
                if family != "none"
                else "none of the five"
            )
            out.append(
                f'<tr data-bt-anchor="{key}-{p["id"]}"><td><a href="{online}#{p["id"]}">'
                f"{_inline(p['title'])}</a></td><td>{html.escape(p['library'])}</td>"
                f"<td>{fix_cell}</td></tr>"
            )
        out.append("</tbody></table>")
    return "\n".join(out)


def _program_pages(config) -> list[str]:
    """The program pages' sources, in nav order."""
    return [src for _, src in sitekit.nav_pages(config["nav"]) if src in _programs]


def guide_items(items: list, index) -> list:
    """The nav, as print-site walks it, with only the guide's pages: the index stands where
    the first program page stood, and a section left with no page goes."""
    kept = []
    for item in items:
        if item.is_section:
            children = guide_items(item.children, index)
            if children:
                kept.append(
                    types.SimpleNamespace(
                        is_page=False, is_section=True, title=item.title, children=children
                    )
                )
        elif item.is_page and sitekit.in_guide(item.file.src_uri):
            kept.append(item)
        elif (
            item.is_page and sitekit.PROGRAM_PAGES.fullmatch(item.file.src_uri) and not index.placed
        ):
            index.placed = True
            kept.append(index)
    return kept


# After print-site (priority 0) has written its own page.
@event_priority(-100)
def on_post_build(config):
    plugin = config.plugins.get("print-site")
    if plugin is None or not plugin.config.get("enabled"):
        return
    own_page, own_items = plugin.print_page, plugin.renderer.items
    guide_file = File(
        path=Path(sitekit.GUIDE_PAGE).stem + ".md",
        src_dir="",
        dest_dir=config["site_dir"],
        use_directory_urls=config.get("use_directory_urls"),
    )
    guide = Page(title=GUIDE_TITLE, file=guide_file, config=config)
    guide.edit_url = None
    guide.meta["guide"] = True  # the cover template says which PDF it is
    # A project with no program page (the tests' copies of a few pages) has no index.
    programs = _program_pages(config)
    index_url = _pages[programs[0]].url if programs else None
    index = types.SimpleNamespace(
        is_page=True,
        is_section=False,
        title=sitekit.GUIDE_INDEX_TITLE,
        url=index_url,
        file=types.SimpleNamespace(src_path="guide-index.md"),
        meta={},
        html=index_html(config, index_url) if programs else "",
        placed=not programs,
    )
    try:
        plugin.print_page = plugin.renderer.print_page = guide
        plugin.renderer.items = guide_items(own_items, index)
        plugin.on_post_build(config)
    finally:
        plugin.print_page = plugin.renderer.print_page = own_page
        plugin.renderer.items = own_items
    path = Path(guide_file.abs_dest_path)
    guide_html = relink(path.read_text(encoding="utf-8"), config)
    # The guide's own print styles (docs/stylesheets/extra.css) apply inside this mark.
    guide_html = guide_html.replace('<div id="print-site-page" class="', GUIDE_MARK, 1)
    guide_html = plain_code(guide_html)
    guide_html = sitekit.GUIDE_SKIP.sub(
        f'<p>Read it <a href="{config["site_url"]}diagnose/#command-source">on the site</a>, '
        "or in the file you download.</p>",
        guide_html,
    )
    path.write_text(guide_html, encoding="utf-8")
    own_path = Path(own_page.file.abs_dest_path)
    own_path.write_text(plain_code(own_path.read_text(encoding="utf-8")), encoding="utf-8")


def plain_code(page_html: str) -> str:
    """The print page with its code in one colour, but for comments and highlighted lines."""
    return CODE_BLOCK.sub(lambda m: PLAIN_TOKEN.sub(r"\1", m.group(0)), page_html)


def relink(page: str, config) -> str:
    """Give each index row its program's anchor, and send every link to an anchor the guide
    lacks to the site, to the page (and section) that print-site's anchor names."""
    from mkdocs_print_site_plugin.urls import get_page_key

    page = ROW_ANCHOR.sub(r'id="\1"', page)
    present = set(re.findall(r"\bid=[\"']([^\"']*)", page))
    site = config["site_url"].rstrip("/") + "/"
    # Longest first: the key "scenarios" is a prefix of "scenarios-gan".
    keys = sorted(((get_page_key(p.url), p) for p in _pages.values()), key=lambda k: -len(k[0]))

    def online(m):
        anchor = m.group(1)
        if anchor in present:
            return m.group(0)
        for key, target in keys:
            if anchor == key or anchor.startswith(key + "-"):
                section = anchor[len(key) + 1 :]
                url = site + sitekit.url_of(target.file.src_uri).lstrip("/")
                return f'href="{url}{"#" + section if section else ""}"'
        # A link to no page of this build (a test's copy of a few pages) stays as it is: in a
        # whole build, strict mode has already failed on it.
        return m.group(0)

    return ANCHOR_LINK.sub(online, page)
