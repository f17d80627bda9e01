"""`make pdf` and `make offline`: the site as PDFs, and a copy that works opened from disk.

1. `mkdocs build --strict` into site/ (the site as served);
2. at the same time, the same with OFFLINE=true into build/offline/: no directory URLs, search
   without a server;
3. headless Chromium (Playwright) prints build/offline/print_page.html (every page, in nav
   order, after a title page and a table of contents) to site/pdf/<site>.pdf, with the
   headings as bookmarks, and, at the same time in a second browser, build/offline/
   guide_page.html (the same without the real programs, which it lists in one index) to
   site/pdf/<site>-guide.pdf;
4. the offline copy, PDFs included, is zipped to site/offline/<site>-offline.zip.

It prints each file's size (and a PDF's pages) and how long the builds and the rest took.

Steps 3 and 4 are tools/sitekit.py's package(), which the tests run on the session's builds
(`make test KEEP_SITE=site` leaves that site, PDF and zip included, where CI publishes it).
"""

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import sitekit


def build_side_by_side(site_dir: Path, offline_dir: Path):
    """Steps 1 and 2 at once, one a core. Each executes the notebook into a cache of its own:
    two builds writing one cache file at once could read it half written."""
    cache = os.environ.get("NOTEBOOK_CACHE", ".cache/mkdocs-jupyter")
    if Path(cache).is_dir():
        # Entries are keyed by the notebook and the plugin's settings, the same for both
        # builds (make test's builds share one cache, one after the other): start from them.
        shutil.copytree(cache, cache + "-offline", dirs_exist_ok=True)
    runs = []
    for directory, offline in ((site_dir, False), (offline_dir, True)):
        env = dict(os.environ, NOTEBOOK_CACHE=cache + ("-offline" if offline else ""))
        cmd, env = sitekit.build_command(directory, offline, env=env)
        runs.append(
            subprocess.Popen(
                cmd, cwd=sitekit.ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
            )
        )
    for run in runs:
        output = run.communicate()[0].decode(errors="replace")
        if run.returncode:
            sys.exit(f"mkdocs build failed:\n{output}")


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
    build_side_by_side(args.site_dir, args.offline_dir)
    built = time.perf_counter()
    print(f"built in {built - start:.1f} s")
    if args.no_pdf:
        written = sitekit.package(args.site_dir, args.offline_dir)
    else:
        with sitekit.browser() as chromium:
            written = sitekit.package(args.site_dir, args.offline_dir, chromium)
    for path in written:
        print(f"{path}:{sitekit.size_label(path)}")
    print(f"printed and zipped in {time.perf_counter() - built:.1f} s")
    print(f"done in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
