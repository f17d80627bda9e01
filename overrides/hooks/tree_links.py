"""MkDocs hook: each answer at the end of the decision tree links straight to its fix.

The tree (docs/diagnose.md#which-fix) is a Mermaid diagram, and Mermaid takes a `click X href`
URL as it is: MkDocs does not resolve it the way it resolves a Markdown link, and the fix's URL
is not the same in the site (`../scenarios/gan/#fix-detach-fake`), the offline copy
(`scenarios/gan.html#fix-detach-fake`) and the PDF (one page, other ids). So the source points
each answer at its entry in the list under the tree (`href "#tree-X"`, `<span id="tree-X">`),
and this hook replaces that with the URL of the entry's first link, as MkDocs resolved it for
this build.

The PDF keeps the answers' links to the list: print-site takes each page's content at its own
`on_page_content` (priority 0), before this hook (lower priority) changes it, and the PDF's
list links to the fixes inside the PDF.
"""

import re

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

CLICK = re.compile(r'(click (\w+) href )"#tree-\2"')
# An entry: its id, then up to the first link of the entry (no other entry's id in between).
ENTRY = re.compile(
    r'<span id="tree-([\w-]+)"></span>(?:(?!<span id="tree-).)*?<a href="([^"]+)"', re.S
)


@event_priority(-50)
def on_page_content(html, page, config, files):
    if 'class="mermaid"' not in html or "#tree-" not in html:
        return html
    fixes = dict(ENTRY.findall(html))
    missing = sorted({m.group(2) for m in CLICK.finditer(html)} - fixes.keys())
    if missing:
        raise PluginError(
            f"{page.file.src_uri}: the tree's answers {missing} have no entry with a link "
            'under the tree (<span id="tree-NAME"></span> ... [fix](page.md#id))'
        )
    return CLICK.sub(lambda m: f'{m.group(1)}"{fixes[m.group(2)]}"', html)
