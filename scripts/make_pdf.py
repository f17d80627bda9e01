"""`make pdf` and `make offline`: the site as one PDF, and a copy that works opened from disk.

1. `mkdocs build --strict` into site/ (the site as served);
2. the same with OFFLINE=true into build/offline/: no directory URLs, search without a server;
3. headless Chromium (Playwright) prints build/offline/print_page.html (every page, in nav
   order, after a title page and a table of contents) to site/pdf/<site>.pdf, with the
   headings as bookmarks;
4. the offline copy, PDF included, is zipped to site/offline/<site>-offline.zip.

Steps 3 and 4 are tools/sitekit.py's package(), which the tests run on the session's builds
(`make test KEEP_SITE=site` leaves that site, PDF and zip included, where CI publishes it).
"""

import argparse
import shutil
import sys
import time
from pathlib import Path

import sitekit


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
    if args.no_pdf:
        written = sitekit.package(args.site_dir, args.offline_dir)
    else:
        with sitekit.browser() as chromium:
            written = sitekit.package(args.site_dir, args.offline_dir, chromium)
    for path in written:
        print(f"{path}: {path.stat().st_size / 1e6:.1f} MB")
    print(f"done in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
