"""`make pdf` and `make offline`: the site as one PDF, and a copy that works opened from disk.

1. `mkdocs build --strict` into site/ (the site as served);
2. the same with OFFLINE=true into build/offline/: no directory URLs, search without a server;
3. headless Chromium prints build/offline/print_page.html (every page, in nav order, after a
   title page and a table of contents) to site/pdf/<site>.pdf, with the headings as bookmarks;
4. the offline copy, PDF included, is zipped to site/offline/<site>-offline.zip.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from mkdocs.utils import yaml_load

ROOT = Path(__file__).resolve().parents[1]
# Debian's Chromium here; elsewhere (a GitHub runner has Google Chrome) point CHROMIUM at one.
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# Headless, and quiet: no sync, updates or background requests to anyone.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def site_slug() -> str:
    config = yaml_load((ROOT / "mkdocs.yml").read_text())
    return re.sub(r"[^a-z0-9]+", "-", config["site_name"].lower()).strip("-")


def build(site_dir: Path, offline: bool = False, project: Path = ROOT, strict: bool = True):
    """`mkdocs build` as `make test` runs it; on failure, raise with everything it printed.

    Never --quiet: it drops the warnings that --strict counts, so broken links would pass.
    """
    env = dict(os.environ, OFFLINE="true" if offline else "false", NO_MKDOCS_2_WARNING="1")
    cmd = [sys.executable, "-m", "mkdocs", "build", "--site-dir", str(site_dir)]
    run = subprocess.run(
        cmd + (["--strict"] if strict else []), cwd=project, env=env, capture_output=True, text=True
    )
    if run.returncode:
        raise RuntimeError(f"mkdocs build failed in {project}:\n{run.stdout}{run.stderr}")


def print_pdf(offline_dir: Path, pdf: Path):
    if not Path(CHROMIUM).exists():
        sys.exit(f"{CHROMIUM} is missing: install it with `apt-get install chromium`")
    pdf.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [
                CHROMIUM,
                *CHROMIUM_FLAGS,
                f"--user-data-dir={profile}",
                "--no-pdf-header-footer",
                "--generate-pdf-document-outline",
                # Time for Mermaid to draw its diagrams before the page is printed.
                "--virtual-time-budget=20000",
                f"--print-to-pdf={pdf}",
                (offline_dir / "print_page.html").as_uri(),
            ],
            check=True,
            capture_output=True,
        )
    if not pdf.is_file():
        sys.exit(f"Chromium wrote no PDF to {pdf}")


def zip_tree(src: Path, target: Path):
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(src.rglob("*")):
            if path.is_file():
                z.write(path, Path(target.stem) / path.relative_to(src))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site-dir", type=Path, default=ROOT / "site")
    parser.add_argument("--offline-dir", type=Path, default=ROOT / "build" / "offline")
    parser.add_argument("--no-pdf", action="store_true", help="only the offline copy and its zip")
    args = parser.parse_args()

    start = time.perf_counter()
    shutil.rmtree(args.offline_dir, ignore_errors=True)
    build(args.site_dir, offline=False)
    build(args.offline_dir, offline=True)
    slug = site_slug()
    if not args.no_pdf:
        pdf = args.site_dir / "pdf" / f"{slug}.pdf"
        print_pdf(args.offline_dir, pdf)
        (args.offline_dir / "pdf").mkdir()
        shutil.copy(pdf, args.offline_dir / "pdf" / pdf.name)
        print(f"{pdf.relative_to(args.site_dir.parent)}: {pdf.stat().st_size / 1e6:.1f} MB")
    archive = args.site_dir / "offline" / f"{slug}-offline.zip"
    zip_tree(args.offline_dir, archive)
    print(f"{archive.relative_to(args.site_dir.parent)}: {archive.stat().st_size / 1e6:.1f} MB")
    print(f"done in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
