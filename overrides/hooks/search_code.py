"""MkDocs hook: a search index every page can afford, with the names readers search code for.

Every page downloads search/search_index.json. With every script's full text in it, it was
2.07 MB (400 KB gzipped), most of it the real programs' code, and every page weighed more than
400 KB. Material leaves out of its index any element marked `data-search-exclude` (the mark is
then removed from the page), so the index keeps what readers search for and leaves out:

- every code block and outcome fence (Output, Raises, consoles), and every diagram's source
  (its labels say again what the text around it says). What a reader types from code
  is a name, so each section gets, after its text, the API names of its Python code that its
  text does not already say: what it imports, dotted names reached from an import
  (`dde.data.FPDE`, `utils.reset`), the keywords of calls to those (`num_sanity_val_steps=`),
  and the classes and functions it defines (`Dataset1D`, `training_step`). A name in more than
  a tenth of the site's code blocks (`torch.manual_seed`, `nn.Linear`) is every script's
  boilerplate, not what a section is about, and is left out;
- a table of more than LONG_TABLE rows: the verdict tables and the library table, whose rows
  repeat their sections' titles, which are indexed where the sections are;
- on the program pages, the paragraphs of a program's reasoning, which open with a bold
  lead-in ("Reduced from the thread.", "The fix (detach).", "The thread's wrong fix."): the
  program's title, its source and library line, what its user wanted and its code's names
  find it; the whole text is on its page;
- in a wrong fix's section, what follows its first paragraph: its title names the tempting
  thing and its first paragraph what goes wrong, which is what finds it (search ranks it last,
  overrides/hooks/search_wrong_fix_last.py); the proof stays on the page.

Together these took the index from 2.07 MB (400 KB gzipped) to about 504 KB (141 KB); the
names are about a sixth of that.

Measured by `make bench` (scripts/bench_lighthouse.py prints the index's size); tests in
tests/test_site.py and tests/test_browser.py.
"""

import ast
import html
import re
from collections import Counter

import sitekit
from mkdocs.plugins import event_priority

CODE_BLOCK = re.compile(
    r'(<div class="(?:[\w-]+ )?highlight\b[^"]*"|<pre class="mermaid")(.*?</pre>)', re.S
)
# A block's code, without the title a fence may have above it.
CODE = re.compile(r"<code>(.*)</code>", re.S)
EXCEPTION_LINE = re.compile(r"\b\w+(?:Error|Exception|Warning): ")
MESSAGE_WORDS = 12
OWN_ERROR = "Trying to backward through the graph a second time"
HEADING = re.compile(r'<h[1-6] id="([^"]+)"')
TABLE = re.compile(r"<table>(.*?)</table>", re.S)
LONG_TABLE = 15
# A program's reasoning: a paragraph with a bold lead-in, but what its user wanted.
# On a program page, a program's section and its fixes' (by their heading ids), up to the next
# heading.
PROGRAM_SECTION = re.compile(
    r'(<h[1-6] id="(?:case|program|expert|fix|wrong-fix)-[^"]*".*?</h[1-6]>)(.*?)(?=<h[1-6]|$)',
    re.S,
)
# overrides/hooks/fix_styles.py (priority 0, before this hook) wraps each wrong fix in this.
WRONG_FIX = re.compile(r'(<section class="bt-wrong-fix">)(.*?)(</section>)', re.S)
SKIPPED = re.compile(r'<(p|ul|ol) data-search-exclude="true">(.*?)</\1>', re.S)
INLINE_CODE = re.compile(r"<code>([^<]+)</code>")
IDENTIFIER = re.compile(r"[A-Za-z_][\w.]*\w")
PROSE = re.compile(r"<(p|ul|ol)>")
# A name in more than this share of all code blocks is boilerplate (`loss`, `model`, `opt`,
# `torch.manual_seed`), and one of a letter or two (`x`, `h0`) a name no reader types.
COMMON = 0.01
SHORTEST = 3
COMPOUND = re.compile(r"[a-z0-9]_[a-z]|[a-z][A-Z]")

_names: dict[str, dict[str | None, list[str]]] = {}  # page URL: section id: names, in order
# page URL: section id: the commands its consoles run, every one: a command named in many
# consoles (the diagnose command's) ranks its page first, as the consoles' text did.
_commands: dict[str, dict[str | None, list[str]]] = {}
_blocks: Counter = Counter()  # name: how many code blocks use it
_block_count = [0]


def on_config(config):
    _names.clear()
    _commands.clear()
    _blocks.clear()
    _block_count[0] = 0


def block_names(code: str) -> tuple[list[str], list[str]]:
    """What a reader would search this block for: a Python script's API names, or any line
    that names an exception but this site's own error (every page's text says that one), as
    readers paste an error message whole; and a console's commands, whole."""
    try:
        return api_names(ast.parse(code)), []
    except (SyntaxError, ValueError):
        pass
    names, commands = [], []
    for line in code.splitlines():
        if line.startswith("$ "):
            commands.append(line[2:])
        elif EXCEPTION_LINE.search(line) and OWN_ERROR not in line:
            # Its opening words name it; the tensor sizes and versions after them vary.
            names.append(" ".join(line.split()[:MESSAGE_WORDS]))
    return names, commands


def api_names(tree: ast.AST) -> list[str]:
    """The names a reader of this Python code would search for (see the module's docstring).
    torch's own API is the subject of every page's text, and the bulk of every script's names:
    the names reached from torch are left to the text."""
    library, torch_names, names = set(), set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound = (alias.asname or alias.name).split(".")[0]
                if alias.name.split(".")[0] == "torch":
                    torch_names.add(bound)
                else:
                    library.add(bound)
                    names.append(alias.name)
        elif isinstance(node, ast.ImportFrom):
            from_torch = (node.module or "").split(".")[0] == "torch"
            names += [node.module] if node.module and not from_torch else []
            for alias in node.names:
                (torch_names if from_torch else library).add(alias.asname or alias.name)
                names += [] if from_torch else [alias.name]

    def root(node) -> str:
        dotted = _dotted(node)
        return dotted.split(".")[0] if dotted else ""

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and root(node) in library:
            # As written, and a class by its own name too (`dde.icbc.OperatorBC`,
            # `OperatorBC`), as its docs and error messages name it.
            names += [_dotted(node)] + ([node.attr] if node.attr[:1].isupper() else [])
        elif isinstance(node, ast.Call) and root(node.func) in library:
            names += [k.arg for k in node.keywords if k.arg]
        elif isinstance(node, ast.Assign):
            # The state a program keeps (`self.latent_avg`), and the compound names of its
            # variables (`mask_token_id`, `variational_distribution`), named as its thread
            # and the library's docs name them; a plain word (`obs`, `actor`) says little.
            names += [
                t.attr for t in node.targets if isinstance(t, ast.Attribute) and root(t) == "self"
            ]
            names += [
                t.id for t in node.targets if isinstance(t, ast.Name) and COMPOUND.search(t.id)
            ]
        elif isinstance(
            node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
        ) and not node.name.startswith("__"):
            names.append(node.name)
    return list(dict.fromkeys(names))


def _dotted(node) -> str | None:
    """`a.b.c` for an attribute chain on a plain name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


# After print-site (priority 0) took the page's content for the PDFs: they need no marks.
@event_priority(-10)
def on_page_content(html_text, page, config, files):
    sections: dict[str | None, list[str]] = {}
    commands: dict[str | None, list[str]] = {}
    section = None
    out, at = [], 0
    marks = sorted(
        [(m.start(), "heading", m) for m in HEADING.finditer(html_text)]
        + [(m.start(), "code", m) for m in CODE_BLOCK.finditer(html_text)],
        key=lambda mark: mark[0],
    )
    for start, kind, m in marks:
        if kind == "heading":
            section = m.group(1)
            continue
        if start < at:  # a block inside a block already marked (a tab's fences)
            continue
        code = CODE.search(m.group(2))
        names, run = (
            block_names(html.unescape(re.sub(r"<[^>]+>", "", code.group(1)))) if code else ([], [])
        )
        commands.setdefault(section, []).extend(run)
        _block_count[0] += 1
        _blocks.update(names)
        sections.setdefault(section, []).extend(names)
        # With a value: Material removes a mark like that from the page once it has indexed it.
        out += [html_text[at:start], m.group(1), ' data-search-exclude="true"']
        at = m.end(1)
    html_text = "".join(out) + html_text[at:]
    html_text = TABLE.sub(
        lambda m: (
            m.group(0)
            if m.group(1).count("<tr") <= LONG_TABLE
            else '<table data-search-exclude="true">' + m.group(1) + "</table>"
        ),
        html_text,
    )

    def skim(heading: str, body: str) -> str:
        marked, names = _after_first_paragraph(body)
        anchor = HEADING.search(heading)
        sections.setdefault(anchor and anchor.group(1), []).extend(names)
        return marked

    if sitekit.PROGRAM_PAGES.fullmatch(page.file.src_uri):
        html_text = PROGRAM_SECTION.sub(lambda m: m.group(1) + skim(*m.groups()), html_text)
    html_text = WRONG_FIX.sub(
        lambda m: m.group(1) + skim(m.group(2), m.group(2)) + m.group(3), html_text
    )
    _names[page.url] = sections
    _commands[page.url] = commands
    return html_text


def _after_first_paragraph(section: str) -> tuple[str, list[str]]:
    """The section's paragraphs and lists after its first paragraph, marked for search to skip
    (its warning line, `<p class=...>`, is not a plain paragraph and stays), and the names in
    their code spans (`reset_mem()`, `OperatorBC`): what they are about stays searchable."""
    seen = [0]

    def mark(m):
        seen[0] += 1
        return (
            m.group(0)
            if seen[0] == 1 and m.group(1) == "p"
            else f'<{m.group(1)} data-search-exclude="true">'
        )

    marked = PROSE.sub(mark, section)
    names = [
        name
        for block in SKIPPED.findall(marked)
        for span in INLINE_CODE.findall(block[1])
        for name in IDENTIFIER.findall(html.unescape(span))
    ]
    return marked, names


# After the search plugin (priority 0) has indexed the page, and before the hook that lowers
# the wrong fixes (-50), which only reads locations.
@event_priority(-40)
def on_page_context(context, page, config, nav):
    search = config.plugins.get("material/search")
    sections = _names.get(page.url)
    if search is None or not sections:
        return context
    common = COMMON * max(_block_count[0], 1)
    # The page's own entry (no anchor) holds the h1's section and anything before it.
    added: set[str] = set()
    top = page.toc.items[0].id if page.toc.items and page.toc.items[0].level == 1 else None
    for entry in search.search_index.entries:
        if entry["location"] != page.url and not entry["location"].startswith(page.url + "#"):
            continue
        anchor = entry["location"].partition("#")[2]
        keys = [anchor] if anchor else [None, top]
        names = [n for key in keys for n in sections.get(key, [])]
        run = [c for key in keys for c in _commands[page.url].get(key, [])]
        said = set(re.findall(r"[\w.]+", html.unescape(entry["title"] + " " + entry["text"])))
        extra = [
            n
            for n in dict.fromkeys(names)
            if n not in said and _blocks[n] <= common and n not in added and len(n) >= SHORTEST
        ]
        # Once a page: in the first section whose code has it (a program's section comes
        # before its fix's, which shows the same script again, changed).
        added.update(extra)
        if extra:
            entry["text"] += " <p>" + " ".join(extra) + "</p>"
        if run:
            entry["text"] += " <p>" + " ".join(run) + "</p>"
    return context
