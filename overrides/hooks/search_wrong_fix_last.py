"""MkDocs hook: in the site's search, a page's "Wrong fix" sections come after the rest.

Material indexes every section as a document of its own and weighs a word in a title 1000 times
a word in the text (`fields` in search/search_index.json). A wrong fix's heading names the
tempting thing, `retain_graph=True`, `requires_grad`, "detach the fake batch", which is what
people type, so without this a "Wrong fix: ..." section was often the first result, above its
own page and its fixes.

Each section whose id is `wrong-fix` or starts with `wrong-fix-` gets a document boost of
WRONG_FIX_BOOST (times the page's own `search: boost:`, if its front matter sets one). Material
passes a document's `boost` to lunr, which multiplies the document's score by it: at 1/1000,
a match in a wrong fix's heading weighs about as much as a match in the text of any other
section. The sections stay searchable (a query that matches nothing else still finds them),
and they still show under their page's result, only below it.
"""

import re

from mkdocs.plugins import event_priority

WRONG_FIX_BOOST = 0.001
WRONG_FIX_ID = re.compile(r"#wrong-fix(-|$)")


# After the search plugin (priority 0) has added the page's sections to its index.
@event_priority(-50)
def on_page_context(context, page, config, nav):
    search = config.plugins.get("material/search")
    if search is None:
        return context
    prefix = page.url + "#"
    for entry in search.search_index.entries:
        location = entry["location"]
        if location.startswith(prefix) and WRONG_FIX_ID.search(location):
            entry["boost"] = entry.get("boost", 1) * WRONG_FIX_BOOST
    return context
