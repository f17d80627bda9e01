"""pytest plugin: every python block on a page ends exactly as the page says it does.

A page shows a snippet with a bare python fence holding an include line, and right under it the
outcome a reader will see, as titled fences:

    ```python
    --8<-- "snippets/scenarios/backward-twice/second_backward_raises.py"
    ```

    ```text title="Raises"
    RuntimeError: Trying to backward through the graph a second time ...
    ```

`title="Output"` is the exact stdout; `title="Raises"` is the final line of the traceback, with
`...` standing for any text. A block may show both (Output first). That visible text is the only
declaration: there is no hidden marker that could say something else.

pytest-codeblocks finds the fences and their line numbers. Everything it would get wrong is
handled here: includes are expanded by pymdownx's own preprocessor with the mkdocs.yml config,
code runs as `python snippet.py` would run it (with `__name__ == "__main__"`), the original
exception is checked (type and message), and every fence the engine would silently skip or run
for real, every marker, and every unused snippet is a failing test naming page, line and snippet.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import difflib
import io
import itertools
import json
import os
import random
import re
import sys
import time
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import markdown
import pytest
from markdown.extensions.attr_list import get_attrs
from mkdocs.utils import yaml_load
from pymdownx.snippets import SnippetExtension, SnippetMissingError, SnippetPreprocessor
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
SCRIPT_KEY = pytest.StashKey["Site"]()


# --------------------------------------------------------------------------------------------
# What a page declares
# --------------------------------------------------------------------------------------------


@dataclass
class Outcome:
    """What the reader is told a block does: its printed output and/or the error it ends with."""

    output: str | None = None
    raises: str | None = None
    output_line: int = 0
    raises_line: int = 0


@dataclass
class Block:
    page: Path
    lineno: int
    code: str  # as expanded for the reader
    includes: list[dict] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)  # the page line each line of code comes from
    outcome: Outcome = field(default_factory=Outcome)
    broken: bool = False  # its include failed; reported as a problem, never run

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


class _RecordingSnippets(SnippetPreprocessor):
    """pymdownx's own preprocessor, remembering which files a block pulled in."""

    def __init__(self, config, md):
        super().__init__(config, md)
        self.included: list[dict] = []

    def process_snippet_lines(self, lines, target):
        self.included.append(dict(target))
        return super().process_snippet_lines(lines, target)


def _read(path) -> str:
    return Path(path).read_text(encoding="utf-8")


class Site:
    """The pages and snippets of one MkDocs project, read the way `mkdocs build` reads them."""

    def __init__(self, root: Path):
        self.root = root
        config = yaml_load((root / "mkdocs.yml").read_text(encoding="utf-8")) or {}
        self.docs_dir = (root / config.get("docs_dir", "docs")).resolve()
        self.snippets_dir = (root / "snippets").resolve()
        snippet_config = None
        for ext in config.get("markdown_extensions") or []:
            if isinstance(ext, dict) and "pymdownx.snippets" in ext:
                snippet_config = dict(ext["pymdownx.snippets"] or {})
        if snippet_config is None or not snippet_config.get("check_paths"):
            raise pytest.UsageError(
                "mkdocs.yml must list pymdownx.snippets under markdown_extensions with "
                "check_paths: true; otherwise a missing snippet vanishes from the page unnoticed"
            )
        base = snippet_config.get("base_path", ["."])
        base = [base] if isinstance(base, str) else base
        # The build runs from the project root; resolve the same paths from wherever pytest runs.
        snippet_config["base_path"] = [str((root / b).resolve()) for b in base]
        self.snippet_config = SnippetExtension(**snippet_config).getConfigs()
        self._pages: dict[Path, tuple[list[Block], list[Problem]]] = {}
        self.results: dict[tuple, Result] = {}
        self.baseline = GlobalState.capture()

    def rel(self, path) -> str:
        path = Path(path).resolve()
        try:
            return str(path.relative_to(self.root))
        except ValueError:
            return str(path)

    def expand(self, code: str) -> tuple[str, list[dict], list[int]]:
        """The code the reader sees, the files it pulls in, and for each of its lines the index
        of the line of `code` it comes from (all of an include's lines come from the include)."""
        pre = _RecordingSnippets(self.snippet_config, markdown.Markdown())
        source = code.rstrip("\n").split("\n")
        notation = pre.get_syntax_mask(source)
        lines: list[str] = []
        origin: list[int] = []
        # Each line that is not snippet notation comes out as one line; each run of notation
        # (an include, or a block of paths) as whatever it expands to.
        for is_notation, run in itertools.groupby(range(len(source)), notation.__getitem__):
            run = list(run)
            expanded = pre.run([source[i] for i in run])
            lines += expanded
            origin += [run[0]] * len(expanded) if is_notation else run
        return "\n".join(lines).rstrip("\n") + "\n", pre.included, origin

    def page(self, path: Path) -> tuple[list[Block], list[Problem]]:
        path = path.resolve()
        if path not in self._pages:
            self._pages[path] = self._analyse(path)
        return self._pages[path]

    def all_pages(self) -> list[Path]:
        return sorted(self.docs_dir.rglob("*.md"))

    def all_blocks(self) -> list[Block]:
        return [b for p in self.all_pages() for b in self.page(p)[0]]

    def _analyse(self, path: Path):
        text = path.read_text(encoding="utf-8")
        raw = text.split("\n")
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

        previous: Block | None = None
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
                previous = self._block(path, fence, problem)
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
                self._attach(previous, title, fence, problem)
                previous_end = end
                continue
            elif title in OUTCOME_TITLES:
                problem(
                    fence.lineno,
                    f'title="{title}" fence is not directly under a python block '
                    "(only blank lines may separate them)",
                )
            previous = None

        declared = []
        for block in blocks:
            if block.broken:
                continue
            if block.outcome.output is None and block.outcome.raises is None:
                problem(
                    block.lineno,
                    f"python block{_shows(self, block)} has no declared outcome: put a "
                    '```text title="Output"``` or ```text title="Raises"``` fence right under it',
                )
            else:
                declared.append(block)
        return declared, problems

    def _block(self, path, fence, problem) -> Block | None:
        try:
            code, includes, origin = self.expand(fence.code)
        except SnippetMissingError as e:
            problem(fence.lineno, f"include failed: {e}")
            # Still takes the outcome fences under it, which would otherwise be reported as strays.
            return Block(path, fence.lineno, "", broken=True)
        return Block(path, fence.lineno, code, includes, [fence.lineno + 1 + i for i in origin])

    def _attach(self, block: Block, title: str, fence, problem):
        outcome = block.outcome
        if title == "Output" and outcome.output is None and outcome.raises is None:
            outcome.output, outcome.output_line = fence.code, fence.lineno
        elif title == "Raises" and outcome.raises is None:
            first = fence.code.strip().split("\n")[0]
            if not EXCEPTION_LINE.match(first):
                problem(
                    fence.lineno,
                    f"Raises block must start with the exception's name as the traceback "
                    f"prints it (e.g. 'RuntimeError: ...'), not {first!r}",
                )
            else:
                outcome.raises, outcome.raises_line = fence.code, fence.lineno
        elif title in OUTCOME_TITLES:
            problem(fence.lineno, f"{title} block out of place: a block shows Output, then Raises")
        else:
            problem(
                fence.lineno,
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
    (1 if the page fails for another reason)."""
    # Closing it at the end lets the engine itself say where it opens.
    try:
        return extract_from_buffer(io.StringIO("\n".join(raw) + "\n" + "`" * 100))[-1].lineno
    except (RuntimeError, IndexError):
        return 1


def _shows(site: Site, block: Block) -> str:
    names = [site.rel(i["snippet"]) for i in block.includes]
    return f" ({', '.join(names)})" if names else ""


# --------------------------------------------------------------------------------------------
# Running a script as `python snippet.py` would, without a new interpreter per script
# --------------------------------------------------------------------------------------------


class GlobalState:
    """Process-wide settings a script can change and the next script would inherit."""

    # A mode left entered can only be pushed off its stack, not exited, which may leave it
    # half-undone: a script that needs this fails rather than passing on what is left.
    FORCED = ("torch modes",)

    @staticmethod
    def _torch_settings():
        import numpy as np
        import torch

        opts = torch._tensor_str.PRINT_OPTS
        return {
            # First: while one is set, every torch call made to restore the rest goes through it.
            "default device": (
                lambda: getattr(
                    getattr(torch._GLOBAL_DEVICE_CONTEXT, "device_context", None), "device", None
                ),
                torch.set_default_device,
            ),
            "torch modes": (
                lambda: (
                    torch._C._len_torch_function_stack(),
                    torch._C._len_torch_dispatch_stack(),
                ),
                _pop_modes,
            ),
            "saved tensors hooks": (
                lambda: torch._C._autograd._top_saved_tensors_default_hooks(True),
                _pop_saved_tensors_hooks,
            ),
            "nn.Module global hooks": (_module_hooks, _set_module_hooks),
            "float32 matmul precision": (
                torch.get_float32_matmul_precision,
                torch.set_float32_matmul_precision,
            ),
            "grad mode": (torch.is_grad_enabled, torch.set_grad_enabled),
            "anomaly mode": (
                lambda: (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()),
                lambda v: torch.autograd.set_detect_anomaly(*v),
            ),
            "default dtype": (torch.get_default_dtype, torch.set_default_dtype),
            "threads": (torch.get_num_threads, torch.set_num_threads),
            "deterministic algorithms": (
                lambda: (
                    torch.are_deterministic_algorithms_enabled(),
                    torch.is_deterministic_algorithms_warn_only_enabled(),
                ),
                lambda v: torch.use_deterministic_algorithms(v[0], warn_only=v[1]),
            ),
            "torch RNG": (torch.get_rng_state, torch.set_rng_state),
            "torch print options": (lambda: dict(vars(opts)), lambda v: _replace(vars(opts), v)),
            "python RNG": (random.getstate, random.setstate),
            "numpy RNG": (np.random.get_state, np.random.set_state),
            "numpy print options": (np.get_printoptions, lambda v: np.set_printoptions(**v)),
            "working directory": (os.getcwd, os.chdir),
            "recursion limit": (sys.getrecursionlimit, sys.setrecursionlimit),
            "environment variables": (_environ, _set_environ),
        }

    def __init__(self, values):
        self.values = values

    @classmethod
    def capture(cls) -> GlobalState:
        return cls({name: get() for name, (get, _) in cls._torch_settings().items()})

    def restore(self) -> list[str]:
        """Put every setting back; return those that were only forced back or not at all."""
        settings = self._torch_settings()
        leaked = []
        for name, value in self.values.items():
            get, put = settings[name]
            if name.endswith("RNG"):
                put(value)  # states hold arrays, which do not compare as one bool
            # Setting only what changed keeps this cheap (setting determinism imports dynamo).
            elif get() != value:
                put(value)
                if name in self.FORCED or get() != value:
                    leaked.append(name)
        if "torch._dynamo" in sys.modules:
            # Compiled code and recompile counters would otherwise carry over.
            sys.modules["torch._dynamo"].reset()
        return leaked


def _replace(target: dict, values: dict):
    target.clear()
    target.update(values)


def _pop_modes(lengths: tuple[int, int]):
    import torch

    while torch._C._len_torch_function_stack() > lengths[0]:
        torch._C._pop_torch_function_stack()
    while torch._C._len_torch_dispatch_stack() > lengths[1]:
        torch._C._pop_torch_dispatch_stack(None)


def _pop_saved_tensors_hooks(hooks):
    """Pop what a script pushed and never popped (a saved_tensors_hooks it never exited)."""
    from torch._C import _autograd

    while (top := _autograd._top_saved_tensors_default_hooks(True)) is not None and top != hooks:
        _autograd._pop_saved_tensors_default_hooks()


def _module_hooks() -> dict:
    """nn.Module's global hooks (forward, backward, registration) and their flags."""
    from torch.nn.modules import module

    return {
        name: dict(value) if isinstance(value, dict) else value
        for name, value in vars(module).items()
        if name.startswith("_global_")
    }


def _set_module_hooks(values: dict):
    from torch.nn.modules import module

    for name, value in values.items():
        if isinstance(value, dict):
            _replace(getattr(module, name), value)
        else:
            setattr(module, name, value)


# pytest sets this one around each test and removes it after; it is not the scripts' to restore.
_PYTEST_VARIABLE = "PYTEST_CURRENT_TEST"


def _environ() -> dict:
    return {k: v for k, v in os.environ.items() if k != _PYTEST_VARIABLE}


def _set_environ(values: dict):
    for name in _environ().keys() - values.keys():
        del os.environ[name]
    os.environ.update(values)


@dataclass
class Result:
    stdout: str
    error: BaseException | None
    seconds: float
    leaked: list[str]  # process-wide state it left that could not be cleanly put back


def _compile(code: str, filename: Path, lines: list[int]):
    """Compile code so that tracebacks show its line i as line lines[i - 1] of filename."""
    first = lines[0]
    # Padding gives syntax errors, raised before any remapping, the file's line numbers too; not
    # inheriting keeps the harness's own `from __future__` imports out of the script.
    tree = compile(
        "\n" * (first - 1) + code, str(filename), "exec", ast.PyCF_ONLY_AST, dont_inherit=True
    )
    for node in ast.walk(tree):
        if getattr(node, "end_lineno", None) is not None:
            start, end = lines[node.lineno - first], lines[node.end_lineno - first]
            if start == end and node.lineno != node.end_lineno:
                node.col_offset = 0  # its lines came from one include line: keep columns valid
            node.lineno, node.end_lineno = start, end
    return compile(tree, str(filename), "exec", dont_inherit=True)


def run_script(site: Site, code: str, filename: Path, lines: list[int]) -> Result:
    """Run code as `python <filename>` would; identical runs are made once and shared."""
    key = (code, str(filename), tuple(lines))
    if key in site.results:
        return site.results[key]
    compiled = _compile(code, filename, lines)
    module_globals = {
        "__name__": "__main__",
        "__file__": str(filename),
        "__builtins__": builtins,
        "__doc__": None,
        "__spec__": None,
        "__package__": None,
        "__loader__": None,
        "__cached__": None,
    }
    before_modules = set(sys.modules)
    argv, path0 = sys.argv, list(sys.path)
    sys.argv = [site.rel(filename)]
    sys.path.insert(0, str(Path(filename).parent))
    out = io.StringIO()
    error = None
    site.baseline.restore()
    start = time.perf_counter()
    try:
        # Warnings go to stderr, which pages do not show; keep them out of pytest's summary.
        with warnings.catch_warnings(record=True), contextlib.redirect_stdout(out):
            exec(compiled, module_globals)
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # noqa: BLE001 - SystemExit is an outcome a page can declare
        error = e
    seconds = time.perf_counter() - start
    sys.argv, sys.path[:] = argv, path0
    for name in set(sys.modules) - before_modules:
        # A helper imported from snippets/ must be re-imported fresh by the next script.
        origin = getattr(sys.modules[name], "__file__", None) or ""
        if origin.startswith(str(site.snippets_dir)):
            del sys.modules[name]
    result = Result(out.getvalue(), error, seconds, site.baseline.restore())
    site.results[key] = result
    return result


# --------------------------------------------------------------------------------------------
# Comparing what happened with what the page says
# --------------------------------------------------------------------------------------------


def _pattern(expected: str, squash_space: bool) -> re.Pattern:
    """`...` matches any text; for errors, runs of whitespace (page line wrapping) match too."""
    parts = []
    for literal in expected.split("..."):
        if squash_space:
            literal = " ".join(literal.split())
            parts.append(r"\s+".join(re.escape(w) for w in literal.split(" ")))
        else:
            parts.append(re.escape(literal))
    joiner = r"\s*.*?\s*" if squash_space else ".*?"
    return re.compile(joiner.join(parts), re.S)


def exception_name(error: BaseException) -> str:
    """The name as the last line of a traceback prints it."""
    cls = type(error)
    if cls.__module__ in ("builtins", "__main__"):
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"


def final_line(error: BaseException) -> str:
    return "".join(traceback.format_exception_only(error)).strip()


def mismatch(outcome: Outcome, result: Result) -> str | None:
    """Why the run does not match what the page declares, or None when it does."""
    if result.leaked:
        return (
            f"it left {', '.join(result.leaked)} changed, which the harness cannot cleanly undo "
            "for the scripts after it; undo it before the script ends"
        )
    if outcome.raises is None and result.error is not None:
        return "documented to succeed, but raised:\n" + _traceback(result.error)
    expected_out = outcome.output or ""
    if not _pattern(expected_out, squash_space=False).fullmatch(result.stdout):
        if not result.stdout and outcome.output is not None:
            what = "printed nothing"
        elif outcome.output is None:
            what = "printed output the page does not show"
        else:
            what = "printed output differs from the page"
        diff = "".join(
            difflib.unified_diff(
                expected_out.splitlines(True),
                result.stdout.splitlines(True),
                "page",
                "actual",
            )
        )
        return f"{what} (line {outcome.output_line or '-'}):\n{diff or result.stdout}"

    if outcome.raises is None:
        return None

    declared_name, _, declared_message = outcome.raises.strip().partition(":")
    where = f"(Raises block, line {outcome.raises_line})"
    if result.error is None:
        return f"documented to raise {declared_name} {where}, but it finished without raising"
    actual_name = exception_name(result.error)
    if actual_name != declared_name:
        return (
            f"documented to raise {declared_name} {where}, but raised {actual_name}:\n"
            + _traceback(result.error)
        )
    actual_message = final_line(result.error).partition(":")[2]
    if not _pattern(declared_message.strip(), squash_space=True).fullmatch(
        " ".join(actual_message.split())
    ):
        return (
            f"raised {actual_name} as documented {where}, but with another message:\n"
            f"  page:   {' '.join(declared_message.split())}\n"
            f"  actual: {' '.join(actual_message.split())}"
        )
    return None


def _traceback(error: BaseException) -> str:
    return "".join(traceback.format_exception(error)[1:])


# --------------------------------------------------------------------------------------------
# pytest wiring
# --------------------------------------------------------------------------------------------


def pytest_addoption(parser):
    parser.addoption(
        "--snippet-timings",
        metavar="FILE",
        help="write each script's own run time (seconds) to FILE as JSON, for `make bench`",
    )
    parser.addoption(
        "--record-tested-version",
        metavar="FILE",
        help="after a full run, list this torch version in FILE if everything passed, or "
        "remove it if anything failed (the reference page shows FILE)",
    )


def pytest_configure(config):
    if getattr(config.option, "codeblocks", False):
        raise pytest.UsageError(
            "--codeblocks runs pages with pytest-codeblocks' own runner, which ignores includes "
            "and wraps exceptions; this project's harness already checks every page"
        )
    config.stash[SCRIPT_KEY] = Site(Path(config.rootpath).resolve())


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path: Path, parent):
    collectors = yield
    site: Site = parent.config.stash[SCRIPT_KEY]
    path = file_path.resolve()
    if path.suffix == ".md" and path.is_relative_to(site.docs_dir):
        return [*collectors, PageFile.from_parent(parent, path=file_path)]
    if (
        path.suffix == ".py"
        and path.is_relative_to(site.snippets_dir)
        and "__pycache__" not in path.parts
    ):
        # Any other collector (pytest's own, for a snippet named on the command line) would
        # import the script as a test module, without __name__ == "__main__".
        return [SnippetFile.from_parent(parent, path=file_path)]
    return collectors


def _record_tested_version(path: Path, passed: bool):
    import torch

    version = torch.__version__.split("+")[0]
    listed = set(re.findall(r"^- torch (\S+)", path.read_text(), re.M)) if path.exists() else set()
    (listed.add if passed else listed.discard)(version)
    ordered = sorted(listed, key=lambda v: [int(p) if p.isdigit() else p for p in v.split(".")])
    path.write_text("".join(f"- torch {v}\n" for v in ordered), encoding="utf-8")


def pytest_sessionfinish(session, exitstatus):
    config = session.config
    record = config.getoption("--record-tested-version")
    # A failure anywhere unlists the version; only the whole suite passing lists it.
    whole = (
        config.args_source == pytest.Config.ArgsSource.TESTPATHS
        and not config.option.keyword
        and not config.option.markexpr
        and not getattr(config.option, "lf", False)  # absent with -p no:cacheprovider
    )
    if record and (exitstatus != 0 or whole):
        _record_tested_version(Path(record), passed=exitstatus == 0)
    elif record:
        config.get_terminal_writer().line(f"{record} left as it was: not the whole suite ran")
    target = session.config.getoption("--snippet-timings")
    if target:
        site: Site = session.config.stash[SCRIPT_KEY]
        runs = [{"script": key[1], "seconds": r.seconds} for key, r in site.results.items()]
        Path(target).write_text(json.dumps(runs, indent=1), encoding="utf-8")


class HarnessFailure(Exception):
    """A check failed; the message says where and why, no traceback of the harness needed."""


class _Item(pytest.Item):
    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, HarnessFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)


class PageFile(pytest.File):
    def collect(self):
        site: Site = self.config.stash[SCRIPT_KEY]
        blocks, problems = site.page(self.path)
        for p in problems:
            yield ProblemItem.from_parent(self, name=f"line {p.lineno}", problem=p)
        for block in blocks:
            yield BlockItem.from_parent(self, name=f"line {block.lineno}", block=block)


class ProblemItem(_Item):
    def __init__(self, *, problem: Problem, **kw):
        super().__init__(**kw)
        self.problem = problem

    def runtest(self):
        site: Site = self.config.stash[SCRIPT_KEY]
        raise HarnessFailure(
            f"{site.rel(self.problem.page)}:{self.problem.lineno}: {self.problem.message}"
        )

    def reportinfo(self):
        return self.path, self.problem.lineno - 1, self.name


class BlockItem(_Item):
    def __init__(self, *, block: Block, **kw):
        super().__init__(**kw)
        self.block = block

    def runtest(self):
        site: Site = self.config.stash[SCRIPT_KEY]
        block = self.block
        filename, lines = block.page, block.lines
        if block.sole_include is not None:
            # The reader sees only the snippet: tracebacks point into it.
            filename = Path(block.sole_include["snippet"])
            lines = _numbered(block.code, _first_line_of(site, block.sole_include))
        result = run_script(site, block.code, filename, lines)
        why = mismatch(block.outcome, result)
        if why:
            raise HarnessFailure(
                f"{site.rel(block.page)}:{block.lineno}{_shows(site, block)}: {why}"
            )

    def reportinfo(self):
        return self.path, self.block.lineno - 1, self.name


def _numbered(code: str, first: int) -> list[int]:
    return list(range(first, first + code.count("\n") + 1))


def _first_line_of(site: Site, include: dict) -> int:
    """Line of the snippet file where the included part (a section, a line range) starts."""
    if include["start"]:
        return (include["start"][0] or 0) + 1
    if not include["section"]:
        return 1
    lines = _read(include["snippet"]).split("\n")
    probe = _RecordingSnippets(site.snippet_config, markdown.Markdown())
    for n, line in enumerate(lines, 1):
        m = probe.match_section(line)
        if m and m.group("name") == include["section"] and m.group("type") == "start":
            return n + 1
    return 1


class SnippetFile(pytest.File):
    def collect(self):
        yield StandaloneItem.from_parent(self, name="standalone")


class StandaloneItem(_Item):
    """`python snippets/x/y.py` must end as the page that shows the whole file says."""

    def runtest(self):
        site: Site = self.config.stash[SCRIPT_KEY]
        me = self.path.resolve()
        rel = site.rel(me)
        shown_by = [
            b for b in site.all_blocks() if any(Path(i["snippet"]) == me for i in b.includes)
        ]
        if not shown_by:
            raise HarnessFailure(f"{rel}: no page includes this snippet; use it or delete it")
        homes = [b for b in shown_by if b.whole_file == me]
        if not homes:
            places = ", ".join(f"{site.rel(b.page)}:{b.lineno}" for b in shown_by)
            raise HarnessFailure(
                f"{rel}: pages show only parts of it ({places}); show the whole script once, "
                "with its outcome, so readers can copy and run it"
            )
        code = _read(me)
        result = run_script(site, code, me, _numbered(code, 1))
        for home in homes:
            why = mismatch(home.outcome, result)
            if why:
                raise HarnessFailure(
                    f"{rel}: run as a script, it does not end as "
                    f"{site.rel(home.page)}:{home.lineno} says: {why}"
                )
