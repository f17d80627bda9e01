"""`make screenshots`: the first screen of the home page and of three scenario pages, on a
desktop and a phone, light and dark, for CI.

Builds the site (or takes --site-dir), serves it on 127.0.0.1 and opens it in the system's
Chromium (tools/sitekit.py), writing build/screenshots/<page>-<screen>-<scheme>.png. An artifact
for a reviewer's eyes, not a check: what the site must do is proven by tests/test_browser.py.
"""

import argparse
import itertools
import sys
import tempfile
from pathlib import Path

import sitekit

PAGES = {
    "home": "/",
    "gan": "/scenarios/gan/",
    "rnn": "/scenarios/rnn-hidden-state/",
    "ddp": "/scenarios/ddp/",
}
# The sizes issue 19 names: a common laptop, and a common phone.
SCREENS = {
    "desktop": {"viewport": {"width": 1366, "height": 900}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
}


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
            for (screen, options), scheme in itertools.product(SCREENS.items(), ("light", "dark")):
                context = chromium.new_context(**options, color_scheme=scheme)
                page = context.new_page()
                for name, url in PAGES.items():
                    page.goto(base + url)
                    page.wait_for_function(sitekit.MERMAID_DRAWN)
                    path = args.out / f"{name}-{screen}-{scheme}.png"
                    page.screenshot(path=path)
                    print(path)
                context.close()


if __name__ == "__main__":
    main()
