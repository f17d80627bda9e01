"""MkDocs hook: the forum page lists every fix in docs/links.yml with a line ready to paste.

The contract file is the one list of public links, so the forum page can only offer links
that the tests keep alive.
"""

from pathlib import Path

import yaml

MARKER = "<!-- every fix in docs/links.yml -->"


def _nav_titles(nav, titles):
    for item in nav:
        if isinstance(item, dict):
            for title, target in item.items():
                if isinstance(target, list):
                    _nav_titles(target, titles)
                else:
                    titles[target] = title
    return titles


def source_of(url: str) -> str:
    """The Markdown file behind a public URL: /scenarios/gan/ is scenarios/gan.md."""
    path = url.strip("/")
    return "index.md" if not path else f"{path}.md"


def fix_entries(docs_dir):
    """(page URL, anchor, summary) for every fix in the link contract, in its order."""
    contract = yaml.safe_load(Path(docs_dir, "links.yml").read_text(encoding="utf-8"))
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
    titles = _nav_titles(config["nav"], {})
    site = config["site_url"].rstrip("/")
    parts, current = [], None
    for url, anchor, summary in fix_entries(config["docs_dir"]):
        if url != current:
            current = url
            parts.append(f"**{titles.get(source_of(url), url)}**\n")
        parts.append(
            f"- [{summary}]({source_of(url)}#{anchor})\n\n"
            f"    ```markdown\n    Fix: {summary} — {site}{url}#{anchor}\n    ```\n"
        )
    listing = "\n".join(parts)
    return markdown.replace(MARKER, f'<div class="forum-links" markdown>\n\n{listing}\n</div>')
