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


def parse_page(html: str) -> Page:
    doc = soup(html)
    page = Page()
    for tag in doc.find_all(id=True):
        if tag["id"]:
            page.ids.add(tag["id"])
            if re.fullmatch(r"h[1-6]", tag.name):
                page.headings.append(tag["id"])
    for tag in doc.find_all("meta"):
        name = tag.get("property") or tag.get("name")
        if name:
            page.meta[name] = tag.get("content")
    canonical = doc.find("link", rel="canonical")
    page.canonical = canonical.get("href") if canonical else None
    h1 = doc.find("h1")
    page.h1 = h1.get_text().replace("¶", "") if h1 else ""
    return page


def assets(html: str) -> list[str]:
    """Every URL a browser fetches by itself while showing the page (not the links)."""
    urls = []
    for tag in soup(html).find_all(["script", "img", "iframe", "source", "audio", "video", "link"]):
        if tag.name != "link" and tag.get("src"):
            urls.append(tag["src"])
        rel = " ".join(tag.get("rel") or [])
        if tag.name == "link" and tag.get("href") and rel not in ("canonical", "alternate"):
            urls.append(tag["href"])
    return urls


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
