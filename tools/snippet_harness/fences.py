"""What a page holds, as pytest-codeblocks reads its fences: python blocks, the outcome fences
under each, and what breaks the site's rules for them (a problem, named by line)."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version
from pymdownx.snippets import SnippetMissingError
from pymdownx.superfences import RE_NESTED_FENCE_START
from pytest_codeblocks.main import extract_from_buffer

OUTCOME_TITLES = ("Output", "Raises")
# "Output" holds on every torch; "Output (torch >= 2.15)" only on the releases its PEP 440
# specifiers name, so that a page shows what each release prints.
TITLE = re.compile(r"(?P<name>\w+)(?:\s*\(torch\s+(?P<spec>[^)]*)\))?")
# What may follow ```python: superfences' highlighting and a file name over the block.
PYTHON_OPTIONS = ("hl_lines", "title")
CLASS = re.compile(r"(?:^|\s)\.([\w#+-]+)")
OPTION = re.compile(r"""([a-zA-Z]\w*)(?:=(["'])(.*?)\2)?""")
# Lexers that render as Python: a fence in one of them is shown as Python code.
PYTHON_LEXERS = {"py", "py3", "python", "python3", "pycon", "ipython", "ipython3", "pyi"}
# The comments pytest-codeblocks acts on (its extract_from_buffer): they could make it drop a
# fence or a whole page, so they are blanked before it reads the page, and reported.
MARKER = re.compile(r"<!--[-\s]*pytest")
INCLUDE_TARGET = re.compile(r"""-+8<-+\s+(["'])(.*?)\1""")
EXCEPTION_LINE = re.compile(r"^([A-Za-z_][\w.]*)(?::\s?(.*))?$")


@dataclass
class Fence:
    """An outcome fence: its text, its opening and closing lines (1-based), the releases it
    holds for (None: every release)."""

    title: str
    text: str
    first: int
    last: int
    torch: SpecifierSet | None = None

    def applies_to(self, version: Version) -> bool:
        return self.torch is None or self.torch.contains(version, prereleases=True)


@dataclass
class Outcome:
    """What the reader is told a block does on one torch: its output and/or its error."""

    output: Fence | None = None
    raises: Fence | None = None

    @property
    def declared(self) -> bool:
        return self.output is not None or self.raises is not None


@dataclass
class Block:
    """A python fence showing one snippet file, whole or an excerpt of it."""

    page: Path
    lineno: int  # its opening fence
    last: int  # its closing fence
    indent: str  # of its opening fence (inside a list item or admonition)
    snippet: Path
    excerpt: str | None  # the include's `:section` or `:3:8`; None when it shows the whole file
    code: str  # what the reader sees
    hl_lines: list[int] = field(default_factory=list)
    fences: list[Fence] = field(default_factory=list)  # its outcome fences, in page order

    def outcome(self, version: Version) -> Outcome | str:
        """The fences that hold on torch `version`, or why they do not say."""
        outcome = Outcome()
        for fence in self.fences:
            if not fence.applies_to(version):
                continue
            slot = fence.title.lower()
            earlier = getattr(outcome, slot)
            if earlier is not None:
                return (
                    f"two {fence.title} fences hold on torch {version} (lines {earlier.first} "
                    f"and {fence.first}): title each for releases of its own"
                )
            setattr(outcome, slot, fence)
        if self.fences and not outcome.declared:
            return (
                f"none of its outcome fences holds on torch {version}: "
                f'add one titled for it, e.g. title="Output (torch >= {version.base_version})"'
            )
        return outcome


@dataclass
class Problem:
    page: Path
    lineno: int
    message: str


def analyse(path: Path, expand: Callable) -> tuple[list[Block], list[Problem]]:
    """The page's python blocks and what is wrong on it; `expand(code)`: the code a fence shows
    and the includes it made (Site.expand)."""
    raw = path.read_text(encoding="utf-8").split("\n")
    blocks: list[Block] = []
    problems: list[Problem] = []

    def problem(lineno, message):
        problems.append(Problem(path, lineno, message))

    in_tilde_fence = False
    for n, line in enumerate(raw, 1):
        if line.lstrip().startswith("~~~"):
            if not in_tilde_fence:
                problem(n, "~~~ fence: this site's fences are ``` fences, the ones the tests read")
            in_tilde_fence = not in_tilde_fence
        elif MARKER.match(line.strip()):
            problem(
                n,
                f"marker {line.strip()!r}: this site declares outcomes only with a visible "
                '```text title="Output"``` or title="Raises" fence under the code, and '
                "skips nothing",
            )
            raw[n - 1] = ""
    try:
        fences = extract_from_buffer(io.StringIO("\n".join(raw)), max_num_lines=len(raw) + 2)
    except RuntimeError:  # with the markers gone, only a fence left open gets here
        problem(_unclosed_fence(raw), "this fence is never closed")
        return blocks, problems

    previous: Block | None = None  # the block outcome fences right here would belong to
    previous_end = -1
    for fence in fences:
        syntax = (fence.syntax or "").strip()
        end = fence.lineno + fence.code.count("\n") + 1
        m = RE_NESTED_FENCE_START.match("```" + syntax)
        attrs = (m.group("attrs") if m else None) or ""
        lexer = (m.group("lang") if m else None) or next(iter(CLASS.findall(attrs)), "")
        options = {k: v for k, _, v in OPTION.findall(m.group("options") or "")} if m else {}
        adjacent = previous is not None and all(
            not raw[i].strip() for i in range(previous_end, fence.lineno - 1)
        )
        if (
            lexer == "python"
            and not attrs
            and not m.group("unrecognized")
            and (set(options) <= {*PYTHON_OPTIONS})
        ):
            previous, shown = _block(expand, path, raw, fence, end, options, problem)
            if shown:
                blocks.append(previous)
            previous_end = end
            continue
        if lexer.lower() in PYTHON_LEXERS:
            problem(
                fence.lineno,
                f"```{syntax} fence: Python on this site is a ```python fence showing a "
                f"snippet ({' and '.join(PYTHON_OPTIONS)} may follow), so that it is tested",
            )
        elif adjacent and "title" in options:
            _attach(previous, options["title"], Fence("", fence.code, fence.lineno, end), problem)
            previous_end = end
            continue
        elif options.get("title", "").split(" (")[0] in OUTCOME_TITLES:
            problem(
                fence.lineno,
                f'title="{options["title"]}" fence is not directly under a python block '
                "(only blank lines may separate them)",
            )
        previous = None
    return blocks, problems


def _block(expand, path, raw, fence, end, options, problem) -> tuple[Block, bool]:
    """The block, and whether it shows a snippet (if not, it is a problem, but the outcome
    fences under it are still its own)."""
    opening = raw[fence.lineno - 1]
    indent = opening[: len(opening) - len(opening.lstrip())]
    unshown = Block(path, fence.lineno, end, indent, path, None, "")
    try:
        code, includes, notation = expand(fence.code)
    except SnippetMissingError as e:
        problem(fence.lineno, f"include failed: {e}")
        return unshown, False
    shown = [line for line in fence.code.split("\n") if line.strip()]
    if len(shown) != 1 or not notation or not includes:
        problem(
            fence.lineno,
            'a python fence shows one snippet file and nothing else: --8<-- "snippets/x.py" '
            'for the whole script, --8<-- "snippets/x.py:section" or "snippets/x.py:3:8" for '
            "an excerpt; code typed on the page would be untested",
        )
        return unshown, False
    include = includes[0]
    excerpt = None
    if include["section"] or include["start"]:
        target = INCLUDE_TARGET.search(shown[0]).group(2)
        excerpt = target[len(include["path"]) :]  # ":name" or ":3:8"
    hl_lines = [int(n) for n in re.findall(r"\d+", options.get("hl_lines", ""))]
    count = code.count("\n")
    if any(not 1 <= n <= count for n in hl_lines):
        problem(
            fence.lineno,
            f'hl_lines="{options["hl_lines"]}" names a line the block does not have: it '
            f"shows {count} lines",
        )
    block = Block(
        path, fence.lineno, end, indent, Path(include["snippet"]), excerpt, code, hl_lines
    )
    return block, True


def _attach(block: Block, title: str, fence: Fence, problem):
    m = TITLE.fullmatch(title.strip())
    name = m.group("name") if m else None
    if name not in OUTCOME_TITLES:
        problem(
            fence.first,
            f"unknown outcome title {title!r} under the python block at line {block.lineno}: "
            f'use {" or ".join(OUTCOME_TITLES)}, or e.g. "Output (torch >= 2.15)" for a text '
            "that holds only on some releases",
        )
        return
    if m.group("spec") is not None:
        try:
            fence.torch = SpecifierSet(m.group("spec").replace(" ", ""))
        except InvalidSpecifier:
            problem(fence.first, f"{title!r}: not a torch version range such as '>= 2.15'")
            return
    fence.title = name
    if name == "Output" and any(f.title == "Raises" for f in block.fences):
        problem(fence.first, "Output fence out of place: a block shows Output, then Raises")
        return
    if name == "Raises":
        first = fence.text.strip().split("\n")[0]
        if not EXCEPTION_LINE.match(first):
            problem(
                fence.first,
                f"Raises block must start with the exception's name as the traceback "
                f"prints it (e.g. 'RuntimeError: ...'), not {first!r}",
            )
            return
    block.fences.append(fence)


def _unclosed_fence(raw: list[str]) -> int:
    """Line of the fence that runs to the end of the page, as pytest-codeblocks pairs fences."""
    closed = "\n".join(raw) + "\n" + "`" * 100
    return extract_from_buffer(io.StringIO(closed), max_num_lines=len(raw) + 3)[-1].lineno
