"""The site's own promises: pinned packages, linkable headings, an offline build, live reload."""

import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MKDOCS = [sys.executable, "-m", "mkdocs"]


def test_every_requirement_is_pinned():
    loose = [
        line
        for line in (ROOT / "requirements.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#") and not re.fullmatch(r"[\w.\-\[\]]+==[\w.+]+", line)
    ]
    assert not loose, f"requirements.txt must pin exact versions: {loose}"


def test_every_heading_has_a_stable_id():
    """Forum answers link to headings; an id derived from the wording breaks when it changes."""
    missing = []
    for page in sorted((ROOT / "docs").rglob("*.md")):
        in_fence = False
        for n, line in enumerate(page.read_text().splitlines(), 1):
            if line.lstrip().startswith("```"):
                in_fence = not in_fence
            elif not in_fence and re.match(r"#{1,6} ", line) and not re.search(r"\{ #[a-z0-9-]+ \}$", line):
                missing.append(f"{page.relative_to(ROOT)}:{n}: {line}")
    assert not missing, "headings without an explicit { #id }:\n" + "\n".join(missing)


class _Assets(HTMLParser):
    """Every URL a browser would fetch by itself while showing the page (not links)."""

    def __init__(self):
        super().__init__()
        self.urls = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("script", "img", "iframe", "source", "audio", "video") and attrs.get("src"):
            self.urls.append(attrs["src"])
        if tag == "link" and attrs.get("href") and attrs.get("rel") not in ("canonical", "alternate"):
            self.urls.append(attrs["href"])


def copy_project(tmp_path) -> Path:
    for name in ("docs", "snippets", "overrides"):
        shutil.copytree(ROOT / name, tmp_path / name)
    shutil.copy(ROOT / "mkdocs.yml", tmp_path)
    return tmp_path


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    subprocess.run([*MKDOCS, "build", "--strict", "--quiet", "--site-dir", str(out)], cwd=ROOT, check=True)
    return out


def test_pages_load_nothing_from_another_origin(site):
    remote = []
    for page in sorted(site.rglob("*.html")):
        parser = _Assets()
        parser.feed(page.read_text())
        remote += [f"{page.relative_to(site)}: {url}" for url in parser.urls if re.match(r"(https?:)?//", url)]
    for css in sorted(site.rglob("*.css")):
        remote += [f"{css.relative_to(site)}: {u}" for u in re.findall(r"url\(['\"]?((?:https?:)?//[^)'\"]+)", css.read_text())]
    assert not remote, "assets fetched from another origin:\n" + "\n".join(remote)


def test_an_external_asset_fails_the_build(tmp_path):
    """The privacy plugin with fetching off is the guard; prove it still trips."""
    project = copy_project(tmp_path)
    page = project / "docs" / "index.md"
    page.write_text(page.read_text() + "\n![logo](https://example.com/logo.png)\n")
    build = subprocess.run([*MKDOCS, "build", "--strict"], cwd=project, capture_output=True, text=True)
    assert build.returncode != 0
    assert "https://example.com/logo.png" in build.stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.read().decode()


def _wait_for(check, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if check():
                return True
        except OSError:
            pass
        time.sleep(0.3)
    return False


def test_serve_rebuilds_when_a_snippet_changes(tmp_path):
    project = copy_project(tmp_path)
    port = _free_port()
    url = f"http://127.0.0.1:{port}/"
    server = subprocess.Popen(
        [*MKDOCS, "serve", "--dev-addr", f"127.0.0.1:{port}"],
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert _wait_for(lambda: "after the first backward" in _get(url)), "mkdocs serve did not come up"
        snippet = project / "snippets/scenarios/backward-twice/second_backward_raises.py"
        snippet.write_text(snippet.read_text().replace("after the first backward", "edited while serving"))
        assert _wait_for(lambda: "edited while serving" in _get(url)), "a snippet change did not rebuild the site"
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_pages_with_a_diagram_bring_their_own_mermaid(site):
    """Without a local Mermaid, Material's bundle fetches one from a CDN when the page loads."""
    pages = [p for p in sorted(site.rglob("*.html")) if 'class="mermaid"' in p.read_text()]
    assert pages, "no page has a diagram: this check would prove nothing"
    lacking = [str(p.relative_to(site)) for p in pages if "javascripts/mermaid-" not in p.read_text()]
    assert not lacking, f"diagram pages without the local Mermaid script: {lacking}"
