"""What the hooks, the scripts and the tests all need to know about the site, in one place.

- the nav: each page's title, source file and public URL, the PDFs' file names (the whole site,
  and the guide: the site without its real programs, which it lists in one index), so the
  Download PDF buttons (a hook sets them), `make pdf` and the tests name the same files;
- `build()`: `mkdocs build --strict` as `make test` runs it;
- `serve()`: a built site on 127.0.0.1 on a free port, in a thread of this process;
- `browser()`: the system's Chromium driven by Playwright, which also prints the PDF;
- `package()`: from a build and an offline build, the two PDFs and the offline zip inside the
  site (`make pdf`, and the tests, from the session's builds).

The hooks import this module without MkDocs' config object at hand (only its nav and site
name), so nothing here imports Playwright or MkDocs at module level.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import gzip
import http.server
import io
import os
import re
import shutil
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Debian's Chromium here; elsewhere (a GitHub runner has Google Chrome) point CHROMIUM at one.
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# Quiet: no sync, updates or background requests to anyone. Playwright adds its own headless
# switch; Lighthouse is given "--headless=new" on top of these.
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


# --------------------------------------------------------------------------------------------
# The nav and the PDF's name
# --------------------------------------------------------------------------------------------


def load_config(project: Path = ROOT) -> dict:
    """mkdocs.yml as MkDocs reads it (its !ENV tags resolved), without validating it."""
    from mkdocs.utils import yaml_load

    return yaml_load((project / "mkdocs.yml").read_text(encoding="utf-8"))


def url_of(src: str) -> str:
    """The public URL of a page's source file: scenarios/index.md is /scenarios/."""
    url = "/" + re.sub(r"\.(md|ipynb)$", "", re.sub(r"(^|/)index\.md$", r"\1", src))
    return url if url.endswith("/") else url + "/"


def nav_pages(nav: list) -> list[tuple[str | None, str]]:
    """(title, source file) of every page in the nav, in its order; None for an untitled one."""
    pages = []

    def walk(items):
        for item in items:
            title, target = (None, item) if isinstance(item, str) else next(iter(item.items()))
            if isinstance(target, list):
                walk(target)
            else:
                pages.append((title, target))

    walk(nav)
    return pages


def source_of(url: str, nav: list) -> str:
    """The source file behind a public URL: the nav's, else /scenarios/gan/ is scenarios/gan.md."""
    for _, src in nav_pages(nav):
        if url_of(src) == url:
            return src
    path = url.strip("/")
    return "index.md" if not path else f"{path}.md"


def commit(project: Path = ROOT) -> str:
    """The checkout's short commit, with "+changes" when the tree differs from it."""
    git = ["git", "-C", str(project)]
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run([*git, "status", "--porcelain"], capture_output=True, text=True)
    return (head.stdout.strip() or "unknown") + ("+changes" if dirty.stdout.strip() else "")


def site_slug(site_name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", site_name.lower()).strip("-")


def pdf_name(site_name: str) -> str:
    """The PDF `make pdf` writes under site/pdf/, and that every page's button downloads."""
    return f"{site_slug(site_name)}.pdf"


def guide_pdf_name(site_name: str) -> str:
    """The guide PDF beside it: the site without its real programs (GUIDE_PAGE prints it)."""
    return f"{site_slug(site_name)}-guide.pdf"


# The real programs (the gallery of libraries, the reduced bug reports, the score's programs):
# the guide lists each in one index, where the first of these pages stands in the nav, and
# prints none of them. A reader who wants their code downloads the whole site's PDF.
PROGRAM_PAGES = re.compile(r"(real-programs|command-score|libraries/[^/]+)\.md")
# Nor does the guide print these: the notebook retells the understand page and a scenario (its
# outputs fill pages), and the forum page is for those who answer, online.
NOT_IN_GUIDE = ("notebooks/walkthrough.ipynb", "forum.md")
# Written beside print-site's print_page.html by overrides/hooks/guide_page.py, with the index
# of the real programs under this title.
GUIDE_PAGE = "guide_page.html"
GUIDE_INDEX_TITLE = "Real programs: an index"


# A part of a guide page that the guide leaves out (the diagnose command's code: the site and
# the file readers download have it): between these two comments in the page's Markdown.
GUIDE_SKIP = re.compile(
    r"<!-- the guide leaves this out -->.*?<!-- the guide leaves this out: end -->", re.S
)


def in_guide(src: str) -> bool:
    """Whether the guide PDF prints this page (a source file of the nav) whole."""
    return not PROGRAM_PAGES.fullmatch(src) and src not in NOT_IN_GUIDE


# --------------------------------------------------------------------------------------------
# Building
# --------------------------------------------------------------------------------------------


def build_command(
    site_dir: Path, offline: bool = False, strict: bool = True, env: dict | None = None
) -> tuple[list[str], dict]:
    """The command and environment of `mkdocs build` as `make test` runs it.

    Never --quiet: it drops the warnings that --strict counts, so broken links would pass.
    """
    env = dict(env or os.environ, OFFLINE="true" if offline else "false", NO_MKDOCS_2_WARNING="1")
    cmd = [sys.executable, "-m", "mkdocs", "build", "--site-dir", str(site_dir)]
    return cmd + (["--strict"] if strict else []), env


def build(site_dir: Path, offline: bool = False, project: Path = ROOT, strict: bool = True):
    """`mkdocs build` as `make test` runs it; on failure, raise with everything it printed."""
    cmd, env = build_command(site_dir, offline, strict)
    run = subprocess.run(cmd, cwd=project, env=env, capture_output=True, text=True)
    if run.returncode:
        raise RuntimeError(f"mkdocs build failed in {project}:\n{run.stdout}{run.stderr}")


# --------------------------------------------------------------------------------------------
# Serving
# --------------------------------------------------------------------------------------------

COMPRESSIBLE = ("text/", "application/javascript", "application/json", "image/svg+xml")


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Static files, quietly; with `compress`, text gzip-compressed as GitHub Pages sends it."""

    compress = False
    cache: dict[str, bytes] = {}

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir() and self.path.split("?")[0].endswith("/"):
            path = path / "index.html"
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        ctype = self.guess_type(str(path))
        if not (self.compress and accepts and path.is_file() and ctype.startswith(COMPRESSIBLE)):
            return super().send_head()
        body = self.cache.get(str(path))
        if body is None:
            body = self.cache[str(path)] = gzip.compress(path.read_bytes(), 6)
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Cache-Control", "max-age=600")
        self.end_headers()
        return io.BytesIO(body)

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serve(directory: Path, compress: bool = False) -> Iterator[str]:
    """Serve `directory` on 127.0.0.1 (a free port) from a thread; yields the base URL.

    `compress`: gzip text as GitHub Pages does, for page weights a reader really downloads
    (`python -m http.server` sends about three times as many bytes).
    """
    handler_class = type("Handler", (_Handler,), {"compress": compress, "cache": {}})

    def handler(*args, **kwargs):
        return handler_class(*args, directory=str(directory), **kwargs)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


# --------------------------------------------------------------------------------------------
# The browser
# --------------------------------------------------------------------------------------------


def missing_chromium() -> str | None:
    """Why the browser cannot start, or None."""
    if Path(CHROMIUM).exists():
        return None
    return (
        f"{CHROMIUM} is missing: install it with `apt-get install chromium` "
        "(or point $CHROMIUM at a Chrome)"
    )


@contextlib.contextmanager
def browser():
    """Headless Chromium from the system (never Playwright's download), with a fresh temporary
    profile that is removed when it closes; each context opened on it starts with empty storage.
    """
    problem = missing_chromium()
    if problem:
        raise RuntimeError(problem)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS
        )
        try:
            yield chromium
        finally:
            chromium.close()


# Diagrams are drawn by script after load: wait until Mermaid has replaced every source block.
MERMAID_DRAWN = "!document.querySelector('pre.mermaid')"


def print_pdf(chromium, html: Path, pdf: Path, timeout_ms: int = 60_000, look=None):
    """Print one page to `pdf` as Chromium's print dialog would with the page's own @page size
    and margins: no header or footer line, the headings as the PDF's bookmarks (outline).
    `look(page)`, if given, is called on the printed page once the PDF is written (the tests
    check what paper shows without loading the page, the site's largest, a second time)."""
    pdf.parent.mkdir(parents=True, exist_ok=True)
    page = chromium.new_page()
    try:
        page.goto(html.as_uri(), wait_until="load", timeout=timeout_ms)
        page.wait_for_function(MERMAID_DRAWN, timeout=timeout_ms)
        page.pdf(
            path=pdf,
            prefer_css_page_size=True,
            display_header_footer=False,
            print_background=True,
            outline=True,
            tagged=True,
        )
        if look is not None:
            look(page)
    finally:
        page.close()


# --------------------------------------------------------------------------------------------
# The PDF and the offline copy
# --------------------------------------------------------------------------------------------


def zip_tree(src: Path, target: Path):
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(src.rglob("*")):
            if path.is_file():
                z.write(path, Path(target.stem) / path.relative_to(src))


def offline_zip_name(site_name: str) -> str:
    """The offline copy's zip, under site/offline/, that the footer and home page link."""
    return f"{site_slug(site_name)}-offline.zip"


SIZE_SLOT = re.compile(r'(<span data-bt-size="(pdf|guide|zip)">)[^<]*(</span>)')
# Chromium (Skia) writes each page as an object of its own, never inside an object stream: a
# PDF's pages can be counted without a PDF library (the tests compare it with poppler's count).
PDF_PAGE = re.compile(rb"/Type\s*/Page\b(?!s)")


def pdf_pages(pdf: Path) -> int:
    return len(PDF_PAGE.findall(pdf.read_bytes()))


def size_label(path: Path) -> str:
    """What a link to the file says after its name: ' (1,105 pages, 44.3 MB)' for a PDF."""
    pages = f"{pdf_pages(path):,} pages, " if path.suffix == ".pdf" else ""
    return f" ({pages}{path.stat().st_size / 1e6:.1f} MB)"


def label_sizes(site: Path, files: dict[str, Path]):
    """Write each file's size (and a PDF's page count) into the links to it (`<span
    data-bt-size="pdf">`) on every page of `site`; a page is replaced whole, as a page being
    served may be read at any moment."""
    sizes = {key: size_label(path) for key, path in files.items()}
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        labelled = SIZE_SLOT.sub(
            lambda m: m.group(1) + sizes.get(m.group(2), "") + m.group(3), html
        )
        if labelled != html:
            partial = page.with_suffix(".html.partial")
            partial.write_text(labelled, encoding="utf-8")
            partial.replace(page)


def _print_alone(html: Path, pdf: Path):
    with browser() as chromium:
        print_pdf(chromium, html, pdf)


def package(
    site_dir: Path, offline_dir: Path, chromium=None, project: Path = ROOT, look=None
) -> list[Path]:
    """Into a built site, from the offline build (OFFLINE=true) of the same sources: the PDF of
    the whole site, printed from the offline build's print page (`look`: print_pdf's), the
    guide's PDF, from its guide page, and the offline copy, both PDFs included, zipped. Without
    `chromium`, only the zip. Returns the files written."""
    site_name = load_config(project)["site_name"]
    written = {}
    if chromium is not None:
        written["pdf"] = site_dir / "pdf" / pdf_name(site_name)
        written["guide"] = site_dir / "pdf" / guide_pdf_name(site_name)
        # Both at once, a core each (the machines have two): the guide in a browser of its own,
        # in a thread, as a browser of Playwright's sync API answers only the thread that
        # opened it. Printed one after the other, the guide added its 5 to 10 s to make pdf.
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            guide = pool.submit(_print_alone, offline_dir / GUIDE_PAGE, written["guide"])
            print_pdf(chromium, offline_dir / "print_page.html", written["pdf"], look=look)
            guide.result()
        (offline_dir / "pdf").mkdir(exist_ok=True)
        for pdf in (written["pdf"], written["guide"]):
            shutil.copy(pdf, offline_dir / "pdf" / pdf.name)
        label_sizes(offline_dir, written)
    written["zip"] = site_dir / "offline" / offline_zip_name(site_name)
    zip_tree(offline_dir, written["zip"])
    label_sizes(site_dir, written)
    return list(written.values())


# --------------------------------------------------------------------------------------------
# The diagnose command: one file for readers, assembled from its parts
# --------------------------------------------------------------------------------------------

COMMAND_PARTS = ROOT / "snippets" / "diagnose" / "freed_graph_report"
COMMAND_NAME = "freed_graph_report.py"
# Each part uses only the parts before it; the package's own entry points come last.
PART_ORDER = ("watching", "facts", "rules", "report", "__init__", "__main__")
COMMAND_SITE = re.compile(r'^SITE = "([^"]+)"$', re.M)


def command_source(parts: Path = COMMAND_PARTS, site_url: str | None = None) -> str:
    """The command as the one file readers download: the package's docstring, every part's
    imports of other modules merged at the top, then each part's code in PART_ORDER under a
    comment with its docstring. The parts' imports of each other go: in one file, their names
    are one namespace. `site_url` replaces the address its `see:` lines name."""
    import ast

    imports: dict[str, set[str]] = {}  # module: names ("" for `import module`)
    sections, defined = [], {}
    for name in PART_ORDER:
        path = parts / f"{name}.py"
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text, filename=str(path))
        doc = ast.get_docstring(tree, clean=False)
        body = tree.body[1:] if doc is not None else tree.body
        start = (tree.body[0].end_lineno if doc is not None else 0) if tree.body else 0
        for node in body:
            if not isinstance(node, ast.Import | ast.ImportFrom):
                break
            start = node.end_lineno
            if isinstance(node, ast.Import):
                for alias in node.names:
                    local = f"as {alias.asname}" if alias.asname else ""
                    imports.setdefault(alias.name, set()).add(local)
            elif node.level == 0:
                imports.setdefault(node.module, set()).update(
                    _imported(alias, path) for alias in node.names
                )
        for top in _top_names(body):
            if top in defined:
                raise ValueError(f"{path}: {top} is defined in {defined[top]} too")
            defined[top] = path.name
        code = "\n".join(text.split("\n")[start:]).strip("\n")
        if name == "__init__":
            head = f'"""{doc}"""'
            sections.append(code)
        else:
            sections.append(_part_comment(name, doc) + code)
    source = head + "\n\n" + _import_block(imports) + "\n\n" + "\n\n\n".join(sections) + "\n"
    if site_url is not None:
        source = COMMAND_SITE.sub(f'SITE = "{site_url}"', source, count=1)
    return source


def _imported(alias, path: Path) -> str:
    if alias.asname:
        raise ValueError(f"{path}: `as` in a top-level import cannot be merged: {alias.name}")
    return alias.name


def _top_names(body) -> list[str]:
    import ast

    names = []
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    return names


def _part_comment(name: str, doc: str | None) -> str:
    """A part's docstring as a comment, wrapped to the snippets' 72 columns."""
    import textwrap

    lines = [f"# --- {name} ".ljust(72, "-")]
    for paragraph in (doc or "").strip().split("\n\n"):
        lines += [f"# {line}" for line in textwrap.wrap(" ".join(paragraph.split()), 70)]
        lines.append("#")
    return "\n".join(lines[:-1]) + "\n\n"


def _import_block(imports: dict[str, set[str]]) -> str:
    """The imports as ruff's isort writes them: the standard library, then the rest; in each,
    `import x` lines first, then `from x import ...`."""
    sections = []
    for stdlib in (True, False):
        mods = sorted(m for m in imports if (m.split(".")[0] in sys.stdlib_module_names) == stdlib)
        plain = [
            f"import {m}{' ' + name if name else ''}"
            for m in mods
            for name in sorted(n for n in imports[m] if n == "" or n.startswith("as "))
        ]
        names = {m: sorted(n for n in imports[m] if n and not n.startswith("as ")) for m in mods}
        froms = [_from_import(m, names[m]) for m in mods if names[m]]
        if plain or froms:
            sections.append("\n".join(plain + froms))
    return "\n\n".join(sections)


def _from_import(module: str, names: list[str], width: int = 72) -> str:
    """`from module import a, b` on one line, or one name a line in parentheses where that line
    is wider than the command's lines may be (as ruff's formatter writes it)."""
    line = f"from {module} import {', '.join(names)}"
    if len(line) <= width:
        return line
    return f"from {module} import (\n" + "".join(f"    {n},\n" for n in names) + ")"


def command_site(parts: Path = COMMAND_PARTS) -> str:
    """The address the command's `see:` lines name by default (its `SITE`), read from the part
    that defines it, without assembling the file."""
    for name in PART_ORDER:
        if m := COMMAND_SITE.search((parts / f"{name}.py").read_text(encoding="utf-8")):
            return m.group(1)
    raise ValueError(f"{parts}: no part defines SITE")


def write_command(directory: Path, site_url: str | None = None) -> Path:
    """The assembled command written into `directory`, as readers download it."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / COMMAND_NAME
    path.write_text(command_source(site_url=site_url), encoding="utf-8")
    return path
