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
  and the classes and functions it defines (`Dataset1D`, `training_step`). Left out: a name in
  more than a hundredth of the site's code blocks (`torch.manual_seed`, `nn.Linear`), every
  script's boilerplate, not what a section is about; what a script takes from the standard
  library or NumPy (`json`, `np.linspace`), plumbing like torch's own names (which a wrong
  fix's code spans name too: `torch.no_grad`); a name with a leading underscore
  (`_is_library`), a program's internals, not its API; and a plain lowercase name that the
  site's prose uses as a word (`optimizer`, `closure`, `dropout`): the prose finds it, and in
  every program section that names it, it would crowd the pages about it out of the results
  (a word only code has, `rsample`, `jacfwd`, stays);
- a table of more than LONG_TABLE rows: the verdict tables and the library table, whose rows
  repeat their sections' titles, which are indexed where the sections are; and a table of
  measurements (costs, overhead, scores), most of whose cells are numbers: no reader types
  `+67.2 MiB`, and its header and the text around it say what it measures;
- a link that says a program section's title (`#case-`, `#program-`, `#expert-`), which is
  indexed where the section is (the rules' list on the diagnose page names every program each
  rule decided; on_env, once every page is written); and an address shown as its own link
  text (a program's "Source:"), whose words are a repository, which its "Library:" line
  names, and an issue's number;
- on the program pages, the paragraphs of a program's reasoning, which open with a bold
  lead-in ("Reduced from the thread.", "The fix (detach).", "The thread's wrong fix."): the
  program's title, its source and library line, what its user wanted and its code's names
  find it; the whole text is on its page;
- in a wrong fix's section, what follows its first paragraph: its title names the tempting
  thing and its first paragraph what goes wrong, which is what finds it (search ranks it last,
  overrides/hooks/search_wrong_fix_last.py); the proof stays on the page. Its warning line
  ("Not a fix: ...") goes too: the same words in every wrong fix, which its heading says.

Together these took the index from 2.07 MB (400 KB gzipped) to about 504 KB (141 KB); the
names are about a sixth of that. The site grew to 536 KB (149.9 KB gzipped); leaving out the
standard library's, underscored and prose-word names, the tables of measurements, the links
that repeat a program's title, the addresses and the warning lines took it to 510 KB (142.3 KB).

Measured by `make bench` (scripts/bench_lighthouse.py prints the index's size); tests in
tests/test_site.py and tests/test_browser.py.
"""

import ast
import html
import re
import sys
import urllib.parse
from collections import Counter
from functools import partial

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
CELL = re.compile(r"<td[^>]*>(.*?)</td>", re.S)
# What a measurement or a count reads: 56.9 MiB, +27%, 1.10x, 112.7 ms, 2.13.0, 7 of 12.
MEASURE = re.compile(r"[+-]?\d[\d.,]*\s*(?:%|x|ms|s|KiB|MiB|GiB|KB|MB|GB|of \d+)?")
PROGRAM_HEADING = re.compile(r'<h[1-6] id="((?:case|program|expert)-[^"]+)">(.*?)</h[1-6]>', re.S)
HEADERLINK = re.compile(r'<a class="headerlink".*?</a>', re.S)
PROGRAM_LINK = re.compile(
    r'(<a href="([^"]*#(?:case|program|expert)-[^"]*)")([^>]*>(.*?)</a>)', re.S
)
ADDRESS_LINK = re.compile(r'(<a href="(https?://[^"]+)")(>\2</a>)')
WARNING_LINE = re.compile(r'<p class="bt-wrong-fix__warning"')
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
PRIVATE = re.compile(r"(?:^|\.)_")
PLAIN = re.compile(r"[a-z][a-z0-9]*")
# The standard library (`json`, `deque`) and NumPy (`np.linspace`) are plumbing, like torch:
# their names are left to the text.
PLUMBING = {"torch", "numpy", *sys.stdlib_module_names}

_names: dict[str, dict[str | None, list[str]]] = {}  # page URL: section id: names, in order
# page URL: section id: the commands its consoles run, every one: a command named in many
# consoles (the diagnose command's) ranks its page first, as the consoles' text did.
_commands: dict[str, dict[str | None, list[str]]] = {}
_blocks: Counter = Counter()  # name: how many code blocks use it
_block_count = [0]
_prose: set[str] = set()  # every lowercase word of the site's text outside its code blocks
_titles: dict[str, str] = {}  # a program section's URL (/page/#id): its title's text


def on_config(config):
    _names.clear()
    _commands.clear()
    _blocks.clear()
    _block_count[0] = 0
    _prose.clear()
    _titles.clear()


def block_names(code: str) -> tuple[list[str], list[str]]:
    """What a reader would search this block for: a Python script's API names, or any line
    that names an exception but this site's own error (every page's text says that one), as
    readers paste an error message whole; and a console's commands, whole: the script a
    command runs is named for what it does (`variational_distribution_memo_..._raises.py`)."""
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
    the names reached from torch, or from the standard library, are left to the text."""
    library, torch_names, names = set(), set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound = (alias.asname or alias.name).split(".")[0]
                if alias.name.split(".")[0] in PLUMBING:
                    torch_names.add(bound)
                else:
                    library.add(bound)
                    names.append(alias.name)
        elif isinstance(node, ast.ImportFrom):
            from_torch = (node.module or "").split(".")[0] in PLUMBING
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
            if m.group(1).count("<tr") <= LONG_TABLE and not _measures(m.group(1))
            else '<table data-search-exclude="true">' + m.group(1) + "</table>"
        ),
        html_text,
    )
    html_text = ADDRESS_LINK.sub(r'\1 data-search-exclude="true"\3', html_text)
    html_text = WARNING_LINE.sub(lambda m: m.group(0) + ' data-search-exclude="true"', html_text)

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
    _prose.update(PLAIN.findall(re.sub(r"<[^>]+>", " ", CODE_BLOCK.sub("", html_text)).lower()))
    for m in PROGRAM_HEADING.finditer(html_text):
        _titles[f"/{page.url}#{m.group(1)}"] = _plain(HEADERLINK.sub("", m.group(2)))
    return html_text


def _plain(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def on_env(env, config, files):
    """Every page written (the search plugin indexes each next): a link whose text is the
    title of the program section it leads to is marked, the title being indexed there."""

    for file in files.documentation_pages():
        page = file.page
        if page is not None and page.content:
            page.content = PROGRAM_LINK.sub(partial(_mark_title_link, "/" + page.url), page.content)
    return env


def _mark_title_link(url: str, m: re.Match) -> str:
    if _titles.get(urllib.parse.urljoin(url, m.group(2))) != _plain(m.group(4)):
        return m.group(0)
    return m.group(1) + ' data-search-exclude="true"' + m.group(3)


def _measures(table: str) -> bool:
    """Whether most of a table's cells are measurements or counts."""
    cells = [html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in CELL.findall(table)]
    return 2 * sum(bool(MEASURE.fullmatch(c)) for c in cells) > len(cells)


def _after_first_paragraph(section: str) -> tuple[str, list[str]]:
    """The section's paragraphs and lists after its first paragraph, marked for search to skip
    (its warning line, `<p class=...>`, is not a plain paragraph: marked apart), and the names in
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
            if n not in said
            and _blocks[n] <= common
            and n not in added
            and len(n) >= SHORTEST
            and not (PRIVATE.search(n) and " " not in n)
            and n.split(".")[0] not in PLUMBING
            and not (PLAIN.fullmatch(n) and n in _prose)
        ]
        # Once a page: in the first section whose code has it (a program's section comes
        # before its fix's, which shows the same script again, changed).
        added.update(extra)
        if extra:
            entry["text"] += " <p>" + " ".join(extra) + "</p>"
        if run:
            entry["text"] += " <p>" + " ".join(run) + "</p>"
    return context
