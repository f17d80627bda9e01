"""What the tests of the built site share: reading built pages, the link contract, project copies.

The build, the static server and the browser themselves live in tools/sitekit.py, which the
hooks and the scripts use too; conftest.py turns them into fixtures (one build per session).
"""

import re
import shutil
import socket
import tempfile
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import sitekit
from bs4 import BeautifulSoup

# The project these tests belong to: a copy of it when a test runs the suite in one (sitekit,
# installed editable, names the checkout it was installed from).
ROOT = Path(__file__).resolve().parents[1]
CONTRACT = ROOT / "docs" / "links.yml"
# The diagnose command as readers download it: one file, assembled from its parts (snippets/
# diagnose/freed_graph_report/) into a folder of this process's own, and the address its `see:`
# lines name: the site's default one (a build with another SITE_URL serves a copy naming that
# one instead: overrides/hooks/download_command.py).
COMMAND = sitekit.write_command(Path(tempfile.mkdtemp(prefix="command-")))
COMMAND_SITE = sitekit.COMMAND_SITE.search(COMMAND.read_text()).group(1)
REDIRECT = re.compile(r'location\.href="([^"]+)"')
# What a test module's REQUIRES may name, and how to tell it is missing.
PACKAGES = {
    "chromium": lambda: [] if not sitekit.missing_chromium() else [sitekit.CHROMIUM],
    "poppler-utils": lambda: [
        tool for tool in ("pdftotext", "pdfinfo", "pdftohtml") if not shutil.which(tool)
    ],
}


def missing_packages(packages) -> list[str]:
    """The Debian packages among `packages` that are not installed."""
    return sorted(pkg for pkg in set(packages) if PACKAGES[pkg]())


def config() -> dict:
    return sitekit.load_config(ROOT)


def site_url() -> str:
    return config()["site_url"]


# --------------------------------------------------------------------------------------------
# Built pages
# --------------------------------------------------------------------------------------------


@dataclass
class Page:
    """Element ids, heading ids, meta and canonical tags, and the h1's text of a built page."""

    ids: set[str] = field(default_factory=set)
    headings: list[str] = field(default_factory=list)
    meta: dict[str, str | None] = field(default_factory=dict)
    canonical: str | None = None
    h1: str = ""


def soup(html: str) -> BeautifulSoup:
    return BeautifulSoup(html, "html.parser")


# Elements with no end tag: they open nothing to count.
VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "track",
    "wbr",
}


class _Reader(HTMLParser):
    """A page read in one pass, no tree (BeautifulSoup took six times as long, and the suite
    reads every page several times); a `<x/>` is opened and closed, a void element only
    opened."""

    def __init__(self):
        super().__init__(convert_charrefs=True)

    @classmethod
    def read(cls, html: str, *args):
        reader = cls(*args)
        reader.feed(html)
        reader.close()
        return reader

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)


class _PageParser(_Reader):
    """parse_page's reader."""

    def __init__(self):
        super().__init__()
        self.page, self.depth = Page(), None  # depth: inside the first h1, how deep
        self.h1 = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.page.ids.add(attrs["id"])
            if re.fullmatch(r"h[1-6]", tag):
                self.page.headings.append(attrs["id"])
        if tag == "meta" and (attrs.get("property") or attrs.get("name")):
            self.page.meta[attrs.get("property") or attrs.get("name")] = attrs.get("content")
        canonical = tag == "link" and "canonical" in (attrs.get("rel") or "").split()
        if canonical and self.page.canonical is None:
            self.page.canonical = attrs.get("href")
        if self.depth is not None:
            self.depth += tag not in VOID
        elif tag == "h1" and not self.page.h1 and not self.h1:
            self.depth = 1

    def handle_endtag(self, tag):
        if self.depth is not None and tag not in VOID:
            self.depth -= 1
            if self.depth == 0:
                self.depth = None
                self.page.h1 = "".join(self.h1).replace("¶", "")

    def handle_data(self, data):
        if self.depth is not None:
            self.h1.append(data)


def parse_page(html: str) -> Page:
    return _PageParser.read(html).page


class _AssetParser(_Reader):
    FETCHED = ("script", "img", "iframe", "source", "audio", "video")

    def __init__(self):
        super().__init__()
        self.urls = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in self.FETCHED and attrs.get("src"):
            self.urls.append(attrs["src"])
        rel = " ".join((attrs.get("rel") or "").split())
        if tag == "link" and attrs.get("href") and rel not in ("canonical", "alternate"):
            self.urls.append(attrs["href"])


def assets(html: str) -> list[str]:
    """Every URL a browser fetches by itself while showing the page (not the links)."""
    return _AssetParser.read(html).urls


class _LinkParser(_Reader):
    """links()'s reader."""

    def __init__(self):
        super().__init__()
        self.hrefs, self.sized = [], []
        self.slot = None  # inside a [data-bt-size] element: [its value, depth, its text]

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "a" and "href" in attrs:
            self.hrefs.append(attrs["href"] or "")
        if tag in VOID:
            return
        if self.slot:
            self.slot[1] += 1
        elif "data-bt-size" in attrs:
            self.slot = [attrs["data-bt-size"], 1, []]

    def handle_endtag(self, tag):
        if self.slot and tag not in VOID:
            self.slot[1] -= 1
            if self.slot[1] == 0:
                self.sized.append((self.slot[0], "".join(self.slot[2])))
                self.slot = None

    def handle_data(self, data):
        if self.slot:
            self.slot[2].append(data)


def links(html: str) -> tuple[list[str], list[tuple[str, str]]]:
    """Every `a[href]`'s href, and each `[data-bt-size]` element's (value, text)."""
    parser = _LinkParser.read(html)
    return parser.hrefs, parser.sized


class _ProseParser(_Reader):
    """prose()'s reader: the text of the article, less what `skip` matches."""

    def __init__(self, skip):
        super().__init__()
        self.skip, self.text = skip, []
        self.inside = self.skipping = 0  # depths inside the article and inside a skipped part

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            return
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if self.inside:
            self.inside += 1
            if self.skipping:
                self.skipping += 1
            elif tag in ("script", "style", "template") or self.skip(tag, classes, attrs):
                self.skipping = 1  # no text a reader sees
        elif "md-content__inner" in classes:
            self.inside = 1

    def handle_endtag(self, tag):
        if tag in VOID or not self.inside:
            return
        self.inside -= 1
        if self.skipping:
            self.skipping -= 1

    def handle_data(self, data):
        if self.inside and not self.skipping:
            self.text.append(data)


def prose(html: str, skip) -> str:
    """The words of a page's article (`.md-content__inner`), whitespace squashed, without the
    elements for which skip(tag, classes, attrs) is true."""
    return " ".join(" ".join(_ProseParser.read(html, skip).text).split())


def nav_pages(site: Path) -> dict[str, Page]:
    """Every page in mkdocs.yml's nav, in its order, by public URL: parsed, so the tests take
    it from the session's `nav` fixture (tests/conftest.py) instead of calling this."""
    return {
        url: parse_page((site / url.lstrip("/") / "index.html").read_text())
        for url in (sitekit.url_of(src) for _, src in sitekit.nav_pages(config()["nav"]))
    }


# --------------------------------------------------------------------------------------------
# The link contract
# --------------------------------------------------------------------------------------------


def resolve(site: Path, url: str) -> Path | None:
    """The built page behind a public URL, following redirect stubs; None if there is none.
    A URL that does not end in a slash is a file the site serves for download."""
    if not url.endswith("/"):
        served = site / url.lstrip("/")
        return served if served.is_file() else None
    for _ in range(5):
        page = site / url.lstrip("/") / "index.html"
        if not page.is_file():
            return None
        target = REDIRECT.search(page.read_text())
        if not target:
            return page
        url = urllib.parse.urljoin(url, target.group(1))
    return None


def broken_links(site: Path, contract: dict) -> list[str]:
    """Contract entries that no longer work; an entry whose value is a URL is a moved page."""
    problems = []
    for url, anchors in contract.items():
        page = resolve(site, url)
        if page is None:
            problems.append(f"{url}: no such page, and no redirect from it")
        elif isinstance(anchors, str):
            if anchors not in contract:
                problems.append(f"{url}: moved to {anchors}, which is not in the contract")
            elif page != resolve(site, anchors):
                problems.append(f"{url}: does not redirect to {anchors}, where it moved")
        else:
            ids = parse_page(page.read_text()).ids
            problems += [
                f"{url}#{a}: no element with this id" for a in anchors or {} if a not in ids
            ]
    return problems


# --------------------------------------------------------------------------------------------
# Project copies and live servers
# --------------------------------------------------------------------------------------------


def copy_project(target: Path, extra=(), pages=None) -> Path:
    """What `mkdocs build` reads (and `extra` paths), copied under `target`, to edit freely.
    `pages`: only these pages of docs/ (paths under it), no notebook: a build of the copy takes
    a second instead of the whole site's, and warns of every link to a page left out."""
    names = ("docs", "snippets", "overrides", "tools", "mkdocs.yml", "requirements.txt")
    names += ("requirements-gallery.txt",)
    for name in (*names, "tested-torch-versions.txt", *extra):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("__pycache__"))
        elif source.is_file():
            shutil.copy2(source, target / name)
    if pages is not None:
        docs = target / "docs"
        for page in [*docs.rglob("*.md"), *docs.rglob("*.ipynb")]:
            if page.relative_to(docs).as_posix() not in pages:
                page.unlink()
    return target


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.read().decode()


def wait_for(check, seconds=60) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if check():
                return True
        except OSError:
            pass
        time.sleep(0.3)
    return False
