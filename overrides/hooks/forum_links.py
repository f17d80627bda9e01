"""MkDocs hook: the forum page lists every fix in docs/links.yml with lines ready to paste.

The contract file is the one list of public links, so the forum page can only offer links
that the tests keep alive.
"""

from pathlib import Path

import sitekit  # installed with tools/ (requirements.txt: -e ./tools)
import yaml

MARKER = "<!-- every fix in docs/links.yml -->"


def _contract(docs_dir) -> dict:
    return yaml.safe_load(Path(docs_dir, "links.yml").read_text(encoding="utf-8"))


def _slug(url: str) -> str:
    """The forum page's heading id for a page: from its URL, `scenarios-gan`."""
    return url.strip("/").replace("/", "-") or "home"


def fix_entries(docs_dir):
    """(page URL, anchor, summary) for every fix in the link contract, in its order."""
    contract = _contract(docs_dir)
    return [
        (url, anchor, summary)
        for url, anchors in contract.items()
        if isinstance(anchors, dict)  # not a moved page's old URL
        for anchor, summary in anchors.items()
        if anchor.startswith("fix-")
    ]


def on_page_markdown(markdown, page, config, files):
    if MARKER not in markdown:
        return markdown
    nav = config["nav"]
    titles = {src: title for title, src in sitekit.nav_pages(nav) if title}
    site = config["site_url"].rstrip("/")
    # A moved page (its old URL mapped to the new one) keeps its old heading id here too.
    moved = {}
    for old, new in _contract(config["docs_dir"]).items():
        if isinstance(new, str):
            moved.setdefault(new, []).append(_slug(old))
    parts, current = [], None
    for url, anchor, summary in fix_entries(config["docs_dir"]):
        source = sitekit.source_of(url, nav)
        if url != current:
            current = url
            # A heading per page, so the forum page has a table of contents; its id comes from
            # the page's URL. Left out of search: it repeats a page's title, and would come
            # first for a query that names the page.
            title = titles.get(source, url)
            parts.append(f"## {title} {{ #{_slug(url)} data-search-exclude }}\n")
            parts += [f'<span id="{old}"></span>\n' for old in moved.get(url, [])]
        # The same answer twice: as plain text for a forum that links bare URLs, and as a
        # Markdown link for one that renders Markdown (GitHub, Discourse, Stack Overflow).
        parts.append(
            f"- [{summary}]({source}#{anchor})\n\n"
            f"    ```text\n    Fix: {summary} — {site}{url}#{anchor}\n    ```\n\n"
            f"    ```markdown\n    [Fix: {summary}]({site}{url}#{anchor})\n    ```\n"
        )
    listing = "\n".join(parts)
    return markdown.replace(MARKER, f'<div class="forum-links" markdown>\n\n{listing}\n</div>')
