"""MkDocs hook: the diagnose command, served as a file a reader downloads with curl.

The file is the tested snippet itself. Its `SITE` constant, which the report's `see:` lines
are built from, is the default `site_url`; when the build sets another (the deploy workflow's
SITE_URL), the served copy and the pages that show its output name that address instead.
"""

import re
from pathlib import Path

COMMAND = Path(__file__).resolve().parents[2] / "snippets" / "diagnose" / "freed_graph_report.py"
NAME = COMMAND.name
SITE = re.compile(r'^SITE = "([^"]+)"$', re.M)


def _default_site() -> str:
    return SITE.search(COMMAND.read_text(encoding="utf-8")).group(1)


def on_page_markdown(markdown, page, config, files):
    default = _default_site()
    if config["site_url"] == default:
        return markdown
    return markdown.replace(default, config["site_url"])


def on_post_build(config):
    text = COMMAND.read_text(encoding="utf-8")
    text = SITE.sub(f'SITE = "{config["site_url"]}"', text, count=1)
    (Path(config["site_dir"]) / NAME).write_text(text, encoding="utf-8")
