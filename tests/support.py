"""What the tests of the built site share: reading built pages, the link contract, project copies.

The build, the static server and the browser themselves live in tools/sitekit.py, which the
hooks and the scripts use too; conftest.py turns them into fixtures (one build per session).
"""

import re
import shutil
import socket
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


class _PageParser(HTMLParser):
    """parse_page's reader: no tree, one pass (BeautifulSoup took six times as long, and the
    suite reads every page several times)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
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
            self.depth += 1
        elif tag == "h1" and not self.page.h1 and not self.h1:
            self.depth = 1

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if self.depth is not None:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if self.depth is not None:
            self.depth -= 1
            if self.depth == 0:
                self.depth = None
                self.page.h1 = "".join(self.h1).replace("¶", "")

    def handle_data(self, data):
        if self.depth is not None:
            self.h1.append(data)


def parse_page(html: str) -> Page:
    parser = _PageParser()
    parser.feed(html)
    parser.close()
    return parser.page


class _AssetParser(HTMLParser):
    FETCHED = ("script", "img", "iframe", "source", "audio", "video")

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.urls = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in self.FETCHED and attrs.get("src"):
            self.urls.append(attrs["src"])
        rel = " ".join((attrs.get("rel") or "").split())
        if tag == "link" and attrs.get("href") and rel not in ("canonical", "alternate"):
            self.urls.append(attrs["href"])

    handle_startendtag = handle_starttag


def assets(html: str) -> list[str]:
    """Every URL a browser fetches by itself while showing the page (not the links)."""
    parser = _AssetParser()
    parser.feed(html)
    parser.close()
    return parser.urls


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
