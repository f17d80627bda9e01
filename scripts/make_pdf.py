"""`make pdf` and `make offline`: the site as one PDF, and a copy that works opened from disk.

1. `mkdocs build --strict` into site/ (the site as served);
2. the same with OFFLINE=true into build/offline/: no directory URLs, search without a server;
3. headless Chromium (Playwright) prints build/offline/print_page.html (every page, in nav
   order, after a title page and a table of contents) to site/pdf/<site>.pdf, with the
   headings as bookmarks;
4. the offline copy, PDF included, is zipped to site/offline/<site>-offline.zip.
"""

import argparse
import shutil
import sys
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import sitekit  # noqa: E402


def zip_tree(src: Path, target: Path):
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(src.rglob("*")):
            if path.is_file():
                z.write(path, Path(target.stem) / path.relative_to(src))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site-dir", type=Path, default=sitekit.ROOT / "site")
    parser.add_argument("--offline-dir", type=Path, default=sitekit.ROOT / "build" / "offline")
    parser.add_argument("--no-pdf", action="store_true", help="only the offline copy and its zip")
    args = parser.parse_args()
    if not args.no_pdf and sitekit.missing_chromium():
        sys.exit(sitekit.missing_chromium())

    start = time.perf_counter()
    shutil.rmtree(args.offline_dir, ignore_errors=True)
    sitekit.build(args.site_dir, offline=False)
    sitekit.build(args.offline_dir, offline=True)
    name = sitekit.pdf_name(sitekit.load_config()["site_name"])
    if not args.no_pdf:
        pdf = args.site_dir / "pdf" / name
        with sitekit.browser() as chromium:
            sitekit.print_pdf(chromium, args.offline_dir / "print_page.html", pdf)
        (args.offline_dir / "pdf").mkdir()
        shutil.copy(pdf, args.offline_dir / "pdf" / pdf.name)
        print(f"{pdf}: {pdf.stat().st_size / 1e6:.1f} MB")
    archive = args.site_dir / "offline" / f"{Path(name).stem}-offline.zip"
    zip_tree(args.offline_dir, archive)
    print(f"{archive}: {archive.stat().st_size / 1e6:.1f} MB")
    print(f"done in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
