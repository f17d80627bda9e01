"""`make screenshots`: pictures of the home page and a scenario page, light and dark, for CI.

Builds the site (or takes --site-dir), serves it on 127.0.0.1 and opens it in the system's
Chromium (tools/sitekit.py), writing build/screenshots/<page>-<scheme>.png. An artifact for a
reviewer's eyes, not a check: what the site must do is proven by tests/test_browser.py.
"""

import argparse
import sys
import tempfile
from pathlib import Path

import sitekit

PAGES = {"home": "/", "scenario": "/scenarios/gan/"}
DESKTOP = {"width": 1280, "height": 800}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site-dir", type=Path, help="an existing build (default: build one)")
    parser.add_argument("--out", type=Path, default=sitekit.ROOT / "build" / "screenshots")
    args = parser.parse_args()
    if sitekit.missing_chromium():
        sys.exit(sitekit.missing_chromium())
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        site = args.site_dir
        if site is None:
            site = Path(tmp) / "site"
            sitekit.build(site)
        with sitekit.serve(site) as base, sitekit.browser() as chromium:
            # The palette follows the reader's system setting until they pick one.
            for scheme in ("light", "dark"):
                context = chromium.new_context(viewport=DESKTOP, color_scheme=scheme)
                page = context.new_page()
                for name, url in PAGES.items():
                    page.goto(base + url)
                    page.wait_for_function(sitekit.MERMAID_DRAWN)
                    path = args.out / f"{name}-{scheme}.png"
                    page.screenshot(path=path)
                    print(path)
                context.close()


if __name__ == "__main__":
    main()
