"""MkDocs hook: a fix, a wrong fix, an Output and a Raises look different at a glance.

A skimmer copies the first code that looks like a fix. Markdown gives every section the same
look, so a "Wrong fix: retain_graph=True" block under its heading looked exactly like the fix
above it, and an Output fence exactly like a Raises one. This hook marks them, from what the
page already says, and docs/stylesheets/extra.css draws them (in both colour schemes and in
print):

- a section whose heading id is `wrong-fix` or starts with `wrong-fix-` (the ids that
  docs/links.yml and the search hook already rely on) is wrapped, heading to the next heading of
  its level or above, in `<section class="bt-wrong-fix">`, and one starting with `fix-` (or
  `fix`) in `<section class="bt-fix">`;
- a fence titled "Raises" gets `bt-raises`, "Output" gets `bt-output`, and a python fence whose
  title starts with "Fix" gets `bt-fix-code` (all with their torch range, if any).

A wrong-fix section also gets a line that says so in words, first under its heading, so that
the warning does not rest on colour (a screen reader, a black-and-white printout).
"""

import re

HEADING = re.compile(r"h([1-6])")
SECTIONS = (
    (re.compile(r"wrong-fix(-.*)?"), "bt-wrong-fix"),
    (re.compile(r"fix(-.*)?"), "bt-fix"),
)
FENCES = (("Raises", "bt-raises"), ("Output", "bt-output"), ("Fix", "bt-fix-code"))
WARNING = "Not a fix: shown so that you recognise it, with what goes wrong."
# The content is Python-Markdown's output, well formed: a scan of its tags is enough to tell
# a heading of the page from one inside a container, at a fraction of an HTML parser's cost
# (BeautifulSoup took a third of the whole build's time).
TAG = re.compile(r"<!--.*?-->|<(/?)([a-zA-Z][\w:-]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>", re.S)
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}
VOID |= {"track", "wbr"}
ID = re.compile(r"""\bid=["']([^"']*)["']""")
FENCE = re.compile(
    r'(<div class="[^"]*\bhighlight\b[^"]*)("[^>]*>\s*<span class="filename">\s*)(\w+)'
)


def on_page_content(html, page, config, files):
    if 'id="wrong-fix' not in html and 'id="fix' not in html and "filename" not in html:
        return html
    html = FENCE.sub(_mark_fence, html)
    return _wrap_sections(html, page)


def _mark_fence(match):
    kind = next((css for word, css in FENCES if match[3].startswith(word)), None)
    return match[1] + (f" {kind}" if kind else "") + match[2] + match[3]


def _wrap_sections(html, page):
    """Put each fix or wrong-fix heading, and what follows it up to the next heading of its
    level or above among its siblings (or to its parent's end), in a <section> of its class."""
    inserts = []  # (position, order at that position, text): closings before openings

    def wrap(headings, parent_end):
        for n, (start, end, level, kind) in enumerate(headings):
            if not kind:
                continue
            after = (s for s, _, lv, _ in headings[n + 1 :] if lv <= level)
            stop = next(after, parent_end)
            inserts.append((start, 1, f'<section class="{kind}">'))
            if kind == "bt-wrong-fix":
                inserts.append((end, 2, f'<p class="bt-wrong-fix__warning">{WARNING}</p>'))
            inserts.append((stop, -start, "</section>"))

    open_elements = [[]]  # for each open element, its child headings: (start, end, level, kind)
    for tag in TAG.finditer(html):
        closing, name = tag[1], (tag[2] or "").lower()
        if not name or name in VOID or tag[3].rstrip().endswith("/"):
            continue
        if closing:
            if len(open_elements) == 1:
                raise ValueError(f"{page.file.src_path}: </{name}> closes no element")
            wrap(open_elements.pop(), tag.start())
            continue
        level = HEADING.fullmatch(name)
        if level:
            found = ID.search(tag[3])
            kind = found and next((c for i, c in SECTIONS if i.fullmatch(found[1])), None)
            end = html.index(f"</{name}>", tag.end()) + len(f"</{name}>")
            open_elements[-1].append((tag.start(), end, int(level[1]), kind))
        open_elements.append([])
    if len(open_elements) != 1:
        raise ValueError(f"{page.file.src_path}: an element is never closed")
    wrap(open_elements[0], len(html))
    for position, _, text in sorted(inserts, key=lambda i: (i[0], i[1]), reverse=True):
        html = html[:position] + text + html[position:]
    return html
