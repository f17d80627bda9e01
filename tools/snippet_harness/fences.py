"""What a page holds, as pytest-codeblocks reads it: python blocks, their outcome fences, and
every fence or marker it would mishandle (a problem, named by line)."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from markdown.extensions.attr_list import get_attrs
from pymdownx.snippets import SnippetMissingError
from pymdownx.superfences import RE_NESTED_FENCE_START
from pytest_codeblocks.main import extract_from_buffer

OUTCOME_TITLES = ("Output", "Raises")
# Fences pytest-codeblocks would not run although they hold Python: a reader would take them
# for tested code.
PYTHON_LEXERS = {"py", "py3", "python", "python3", "pycon", "ipython", "ipython3", "pyi"}
# Fences pytest-codeblocks would run for real in a shell.
SHELL_LEXERS = {"sh", "bash", "zsh"}
# Every comment pytest-codeblocks reads as its own (see its extract_from_buffer).
MARKER = re.compile(r"<!--[-\s]*pytest")
TITLE = re.compile(r'title="([^"]*)"')
EXCEPTION_LINE = re.compile(r"^([A-Za-z_][\w.]*)(?::\s?(.*))?$")


@dataclass
class Fence:
    """A fence's text and where it sits: its opening and closing lines (1-based)."""

    text: str
    first: int
    last: int


@dataclass
class Outcome:
    """What the reader is told a block does: its printed output and/or the error it ends with."""

    output: Fence | None = None
    raises: Fence | None = None

    @property
    def declared(self) -> bool:
        return self.output is not None or self.raises is not None


@dataclass
class Block:
    page: Path
    lineno: int  # its opening fence
    last: int  # its closing fence
    indent: str  # of its opening fence (inside a list item or admonition)
    code: str  # as expanded for the reader
    includes: list[dict] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)  # the page line each line of code comes from
    outcome: Outcome = field(default_factory=Outcome)
    broken: bool = False  # its include failed: a problem, never run, but it owns its fences

    @property
    def sole_include(self) -> dict | None:
        """The include this block consists of, if the fence holds nothing else."""
        if len(self.includes) == 1 and len(set(self.lines)) == 1:
            return self.includes[0]
        return None

    @property
    def whole_file(self) -> Path | None:
        """The snippet this block shows whole and alone, if it does."""
        inc = self.sole_include
        if inc and not inc["section"] and not inc["start"]:
            return Path(inc["snippet"])
        return None


@dataclass
class Problem:
    page: Path
    lineno: int
    message: str


def analyse(path: Path, expand: Callable) -> tuple[list[Block], list[Problem]]:
    """The page's python blocks (with or without an outcome) and what is wrong on it;
    `expand(code)`: the code a fence shows, its includes, each line's origin (Site.expand)."""
    raw = path.read_text(encoding="utf-8").split("\n")
    blocks: list[Block] = []
    problems: list[Problem] = []

    def problem(lineno, message):
        problems.append(Problem(path, lineno, message))

    # pytest-codeblocks would act on these comments (skip, xfail, its own expected output) or
    # die without naming the line; outcomes here are the visible fences and nothing else.
    in_tilde_fence = False
    for n, line in enumerate(raw, 1):
        if line.lstrip().startswith("~~~"):
            if not in_tilde_fence:
                problem(n, "tilde fence: pytest-codeblocks never sees it; use ``` fences")
            in_tilde_fence = not in_tilde_fence
        elif MARKER.match(line.strip()):
            problem(
                n,
                f"unknown marker {line.strip()!r}: this site declares outcomes only with a "
                f'visible ```text title="Output"``` or title="Raises" fence under the code, '
                "and skips nothing",
            )
            raw[n - 1] = ""
    try:
        fences = extract_from_buffer(io.StringIO("\n".join(raw)))
    except RuntimeError as e:
        problem(_unclosed_fence(raw), f"pytest-codeblocks cannot read this page: {e}")
        return blocks, problems

    previous: Block | None = None  # the block outcome fences right here would belong to
    previous_end = -1
    for fence in fences:
        syntax = (fence.syntax or "").strip()
        lexer = _lexer(syntax)
        title_match = TITLE.search(syntax)
        title = title_match.group(1) if title_match else None
        end = fence.lineno + fence.code.count("\n") + 1
        adjacent = previous is not None and all(
            not raw[i].strip() for i in range(previous_end, fence.lineno - 1)
        )
        if syntax == "python":
            previous = _block(expand, path, raw, fence, end, problem)
            if not previous.broken:
                blocks.append(previous)
            previous_end = end
            continue
        if lexer in PYTHON_LEXERS:
            problem(
                fence.lineno,
                f"```{syntax} fence: pytest-codeblocks skips it, so it would look tested "
                "without running; write a bare ```python fence",
            )
        elif lexer in SHELL_LEXERS:
            problem(
                fence.lineno,
                f"```{syntax} fence: pytest-codeblocks would execute it; show commands "
                "with ```console",
            )
        elif adjacent and title is not None:
            _attach(previous, title, Fence(fence.code, fence.lineno, end), problem)
            previous_end = end
            continue
        elif title in OUTCOME_TITLES:
            problem(
                fence.lineno,
                f'title="{title}" fence is not directly under a python block '
                "(only blank lines may separate them)",
            )
        previous = None
    return blocks, problems


def _block(expand, path, raw, fence, end, problem) -> Block:
    opening = raw[fence.lineno - 1]
    indent = opening[: len(opening) - len(opening.lstrip())]
    try:
        code, includes, origin = expand(fence.code)
    except SnippetMissingError as e:
        problem(fence.lineno, f"include failed: {e}")
        return Block(path, fence.lineno, end, indent, "", broken=True)
    lines = [fence.lineno + 1 + i for i in origin]
    return Block(path, fence.lineno, end, indent, code, includes, lines)


def _attach(block: Block, title: str, fence: Fence, problem):
    outcome = block.outcome
    if title == "Output" and not outcome.declared:
        outcome.output = fence
    elif title == "Raises" and outcome.raises is None:
        first = fence.text.strip().split("\n")[0]
        if not EXCEPTION_LINE.match(first):
            problem(
                fence.first,
                f"Raises block must start with the exception's name as the traceback "
                f"prints it (e.g. 'RuntimeError: ...'), not {first!r}",
            )
        else:
            outcome.raises = fence
    elif title in OUTCOME_TITLES:
        problem(fence.first, f"{title} block out of place: a block shows Output, then Raises")
    else:
        problem(
            fence.first,
            f"unknown outcome title {title!r} under the python block at line "
            f"{block.lineno}: use one of {', '.join(OUTCOME_TITLES)}",
        )


def _lexer(syntax: str) -> str:
    """The language superfences renders a fence in, from what follows its backticks."""
    m = RE_NESTED_FENCE_START.match("```" + syntax)
    if m is None:
        return ""
    if m.group("lang"):
        return m.group("lang").lower()
    classes = [value for key, value in get_attrs(m.group("attrs") or "") if key == "."]
    return classes[0].lower() if classes else ""


def _unclosed_fence(raw: list[str]) -> int:
    """Line of the fence that runs to the end of the page, as pytest-codeblocks pairs fences
    (1 if the page fails for the only other reason it can: more lines than it reads)."""
    # Closing it at the end lets the engine itself say where it opens.
    try:
        return extract_from_buffer(io.StringIO("\n".join(raw) + "\n" + "`" * 100))[-1].lineno
    except RuntimeError:  # too long for it (its max_num_lines)
        return 1
