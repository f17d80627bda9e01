"""MkDocs hook: notebook pages (mkdocs-jupyter) that search well, stay offline and read well.

- Search: the index leaves out a notebook's outputs (its traceback among them), the copy
  buttons' "Copied!" text and the hidden copy of each cell's code they copy. Whoever searches
  for the error message should land on the page that explains their case, not on the
  walkthrough's deliberate error; its code cells are left out, with their names kept, as every
  page's code is (search_code.py). Material's search skips
  any element marked `data-search-exclude`, then removes the mark: the page still shows it all.
- Offline: nbconvert's template adds a script that imports Mermaid from cdnjs.cloudflare.com
  when the page has a Mermaid output. Without one the script does nothing; it is removed, so
  that no notebook page names a CDN (a notebook with a Mermaid output fails the build instead).
  MathJax, the other CDN script, is configured away in mkdocs.yml (`custom_mathjax_url`).
- Download: under the title, a link to the .ipynb that `include_source: true` copies next to
  the page. It is added to the finished page, after print-site took the page's content: in the
  PDF it would point at a file that is not there.
- Links: a heading that holds an empty `<a id="..."></a>` (Jupyter's own way to give a heading
  an anchor, invisible in Jupyter) takes that id, on the page and in its table of contents, in
  place of the id derived from its wording: links to it survive a reworded heading, as the
  Markdown pages' `{ #id }` do. Notebook metadata under `"mkdocs"` becomes the page's meta, as
  front matter does on a Markdown page: `"description"` feeds the link previews.
- Reading: code cells take the site's syntax colours (Jupyter's default ones are below WCAG's
  4.5:1 contrast, and ignore the dark scheme), the error's red name reads like the rest of its
  line, and a code cell that scrolls sideways can be scrolled from the keyboard, as Material
  does for its own code blocks.
"""

import html as html_lib
import json
import posixpath
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

UNSEARCHED = re.compile(
    r'<div class="zeroclipboard-container"'
    r'|<div class="clipboard-copy-txt"'
    r'|<div class="[^"]*\bjp-OutputArea-output\b[^"]*"'
)
MERMAID_LOADER = re.compile(
    r'<script type="module">\s*document\.addEventListener\("DOMContentLoaded", async \(\) => \{'
    r'\s*const diagrams = document\.querySelectorAll\("\.jp-Mermaid > pre\.mermaid"\);'
    r".*?</script>",
    re.S,
)
EXPLICIT_ID = re.compile(
    r'<h([1-6]) id="([^"]*)">(.*?)\s*<a id="([^"]+)"></a>(.*?)'
    r'<a class="anchor-link" href="#\2">'
)
CODE_CELL = re.compile(r'<div class="highlight-ipynb\b[^"]*"')
# Pygments token classes and the Material colour each gets on the site's own code blocks.
TOKENS = [
    (".o .ow", "operator"),
    (".p", "punctuation"),
    (".cpf .l .s .s1 .s2 .sb .sc .si .ss", "string"),
    (".cp .se .sh .sr .sx", "special"),
    (".il .m .mb .mf .mh .mi .mo", "number"),
    (".k .kd .kn .kp .kr .kt .nd .ni .nl .nt", "keyword"),
    (".kc .n", "name"),
    (".bp .nb .no", "constant"),
    (".nc .ne .nf .nn", "function"),
    (".c .c1 .ch .cm .cs .sd", "comment"),
    (".na .nv .vc .vg .vi", "variable"),
    (".ge .gh .go .gp .gr .gs .gt .gu", "generic"),
]
STYLE = "<style>\n{}\n</style>\n".format(
    "\n".join(
        ", ".join(f".jupyter-wrapper .highlight-ipynb {token}" for token in tokens.split())
        + f" {{ color: var(--md-code-hl-{colour}-color); }}"
        for tokens, colour in TOKENS
    )
    + "\n.jupyter-wrapper .jp-RenderedText[data-mime-type='application/vnd.jupyter.stderr']"
    " pre .ansi-red-fg { color: inherit; font-weight: bold; }"
)


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri.endswith(".ipynb"):
        notebook = json.loads(Path(page.file.abs_src_path).read_text(encoding="utf-8"))
        page.meta = {**notebook["metadata"].get("mkdocs", {}), **page.meta}
    return markdown


def _explicit_ids(html, page):
    """Give each heading the id of the `<a id>` it holds, in the HTML and the table of contents."""
    ids = {}

    def retarget(m):
        level, _, before, new, after = m.groups()
        text = html_lib.unescape(re.sub(r"<[^>]+>", "", before + after)).strip()
        ids[text] = new
        return f'<h{level} id="{new}">{before}{after}<a class="anchor-link" href="#{new}">'

    html = EXPLICIT_ID.sub(retarget, html)

    def walk(items):
        for item in items:
            item.id = ids.get(item.title.strip(), item.id)
            walk(item.children)

    walk(page.toc)
    return html


# Before the plugins (priority 0): print-site copies each page's content into the print page.
@event_priority(50)
def on_page_content(html, page, config, files):
    if not page.file.src_uri.endswith(".ipynb"):
        return html
    html = _explicit_ids(html, page)
    if 'class="jp-Mermaid' in html:
        raise PluginError(
            f"{page.file.src_uri}: a Mermaid output would load Mermaid from a CDN; "
            "render the diagram another way"
        )
    html = UNSEARCHED.sub(lambda m: m.group(0) + ' data-search-exclude="true"', html)
    html = CODE_CELL.sub(lambda m: m.group(0) + ' tabindex="0"', html)
    return MERMAID_LOADER.sub("", html) + STYLE


def on_post_page(output, page, config):
    if not page.file.src_uri.endswith(".ipynb"):
        return output
    name = posixpath.basename(page.file.src_uri)
    link = (
        f'<p><a href="{name}" download>Download this notebook</a> ({name}) to run it yourself; '
        "it needs only <code>torch</code>.</p>"
    )
    return output.replace("</h1>", "</h1>\n" + link, 1)
