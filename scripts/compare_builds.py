"""`make properdocs`: do two builds of the site have the same pages and the same anchors?

Compares two site folders, the main build (MkDocs) and one by ProperDocs, the maintained
drop-in for MkDocs 1.x: every HTML page, every element id on each (the anchors links and the
link contract point at), and every location the search index leads to. Prints each
difference and exits 1 if there is one; a forum answer's link that works on one build and not
on the other is what this catches.
"""

import argparse
import json
import sys
from pathlib import Path

from bs4 import BeautifulSoup


def pages(site: Path) -> dict[str, set[str]]:
    """{page path: its element ids} for every HTML file of a built site."""
    return {
        str(page.relative_to(site)): {
            tag["id"] for tag in BeautifulSoup(page.read_bytes(), "html.parser").find_all(id=True)
        }
        for page in sorted(site.rglob("*.html"))
    }


def search_locations(site: Path) -> set[str]:
    index = site / "search" / "search_index.json"
    if not index.is_file():
        return set()
    return {doc["location"] for doc in json.loads(index.read_text())["docs"]}


def differences(a: Path, b: Path) -> list[str]:
    found = []
    pages_a, pages_b = pages(a), pages(b)
    if not pages_a:
        return [f"{a}: no HTML page at all"]
    found += [f"page only in {a}: {p}" for p in sorted(pages_a.keys() - pages_b.keys())]
    found += [f"page only in {b}: {p}" for p in sorted(pages_b.keys() - pages_a.keys())]
    for page in sorted(pages_a.keys() & pages_b.keys()):
        found += [f"{page}: #{i} only in {a}" for i in sorted(pages_a[page] - pages_b[page])]
        found += [f"{page}: #{i} only in {b}" for i in sorted(pages_b[page] - pages_a[page])]
    search_a, search_b = search_locations(a), search_locations(b)
    found += [f"search entry only in {a}: {s}" for s in sorted(search_a - search_b)]
    found += [f"search entry only in {b}: {s}" for s in sorted(search_b - search_a)]
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="the main build")
    parser.add_argument("other", type=Path, help="the build to compare with it")
    args = parser.parse_args()
    for site in (args.site, args.other):
        if not (site / "index.html").is_file():
            sys.exit(f"{site}: not a built site (no index.html)")
    found = differences(args.site, args.other)
    if found:
        print("\n".join(found))
        sys.exit(f"{len(found)} differences between {args.site} and {args.other}")
    count = len(list(args.site.rglob("*.html")))
    print(f"same {count} pages, anchors and search entries in {args.site} and {args.other}")


if __name__ == "__main__":
    main()
