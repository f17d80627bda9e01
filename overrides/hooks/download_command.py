"""MkDocs hook: the diagnose command, served as the one file a reader downloads with curl.

The file is assembled from its parts (snippets/diagnose/freed_graph_report/, which the diagnose
page shows and the tests run) by sitekit.command_source. Its `SITE` constant, which the
report's `see:` lines are built from, is the default `site_url`; when the build sets another
(the deploy workflow's SITE_URL), the served file and the pages that show its output name that
address instead.
"""

from pathlib import Path

import sitekit


def on_page_markdown(markdown, page, config, files):
    default = sitekit.command_site()
    if config["site_url"] == default:
        return markdown
    return markdown.replace(default, config["site_url"])


def on_post_build(config):
    sitekit.write_command(Path(config["site_dir"]), site_url=config["site_url"])
