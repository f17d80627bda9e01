"""MkDocs hook: a long page paints first and blocks a phone as little as it can.

Measured with Lighthouse's mobile preset (`make bench`), two things held the long scenario
pages back, and this hook mends both without changing what a reader sees:

- Material's bundle, Mermaid and our own scripts come as plain scripts at the end of the body.
  When they have arrived before the first paint (a fast connection, a cached copy), the browser
  runs them, a few hundred milliseconds of a phone's time, before painting anything: in about
  half of the runs the page's largest paint came a second later. Each plain `<script src>`
  after Material's `__config` block is now `defer`: it runs once the document is parsed, in the
  same order and still before DOMContentLoaded, which is what Material's bundle waits for. The
  print page keeps its scripts as they are: print-site renders it itself, for printing.
  (MkDocs' own `defer: true` in `extra_javascript` reaches only our scripts, not Material's
  bundle, Mermaid or print-site's.)
- Pygments wraps every token of a code block in a span, names (class `n`) and whitespace (`w`)
  included: on the longest scenario page those two were 1,493 of its 5,361 elements. At load,
  Material's palette component restyles the whole page several times while it sets the colour
  scheme, so the blocking time grows with the element count. Material draws a name in the
  code's own colour (`--md-code-hl-name-color` is `var(--md-code-fg-color)` in both schemes)
  and styles whitespace not at all, so those spans go and the code reads, copies and searches
  as before. Notebook pages keep theirs: nbconvert's stylesheet has its own colours.

tests/test_site.py checks both, and that Material's stylesheets still colour names as the code.
"""

import re

from mkdocs.plugins import event_priority

UNSTYLED_TOKEN = re.compile(r'<span class="[nw]">([^<]*)</span>')
# Everything after it in a page is Material's `scripts` block (ours extends it in main.html).
SCRIPTS_BLOCK = '<script id="__config"'
SCRIPT = re.compile(r'<script src="([^"]+)"></script>')


# Before the plugins (priority 0): print-site copies each page's content into the print page.
@event_priority(50)
def on_page_content(html, page, config, files):
    if not page.file.src_uri.endswith(".md"):
        return html
    return UNSTYLED_TOKEN.sub(r"\1", html)


def on_post_page(output, page, config):
    return defer_scripts(output)


# The 404 page is a theme template, not a page.
def on_post_template(output_content, template_name, config):
    return defer_scripts(output_content)


def defer_scripts(html: str) -> str:
    before, block, after = html.partition(SCRIPTS_BLOCK)
    return before + block + SCRIPT.sub(r'<script src="\1" defer></script>', after)
