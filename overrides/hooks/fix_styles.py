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

from bs4 import BeautifulSoup

HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
SECTIONS = (
    (re.compile(r"wrong-fix(-.*)?"), "bt-wrong-fix"),
    (re.compile(r"fix(-.*)?"), "bt-fix"),
)
FENCES = (("Raises", "bt-raises"), ("Output", "bt-output"), ("Fix", "bt-fix-code"))
WARNING = "Not a fix: shown so that you recognise it, with what goes wrong."


def on_page_content(html, page, config, files):
    if 'id="wrong-fix' not in html and 'id="fix' not in html and "filename" not in html:
        return html
    soup = BeautifulSoup(html, "html.parser")
    for heading in soup.find_all(HEADINGS, id=True):
        kind = next((css for id_, css in SECTIONS if id_.fullmatch(heading["id"])), None)
        if kind:
            _wrap(soup, heading, kind)
    for title in soup.select(".highlight > .filename"):
        kind = next((css for word, css in FENCES if title.get_text().startswith(word)), None)
        if kind:
            title.parent["class"] = [*title.parent.get("class", []), kind]
    return str(soup)


def _wrap(soup, heading, kind):
    """Put the heading and what follows it, up to the next heading of its level or above, in
    a <section> of class `kind`."""
    level = int(heading.name[1])
    section = soup.new_tag("section", attrs={"class": kind})
    heading.insert_before(section)
    node = heading
    while node is not None:
        following = node.next_sibling
        if node is not heading and node.name in HEADINGS and int(node.name[1]) <= level:
            break
        section.append(node.extract())
        node = following
    if kind == "bt-wrong-fix":
        warning = soup.new_tag("p", attrs={"class": "bt-wrong-fix__warning"})
        warning.string = WARNING
        heading.insert_after(warning)
