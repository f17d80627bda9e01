"""pytest wiring: pages and snippets become test items; `--bless`; `script_runs(config)`."""

from __future__ import annotations

from pathlib import Path

import pytest

from . import bless
from .fences import Block, Problem
from .isolation import GlobalState
from .outcome import mismatch
from .pages import Site
from .run import Result, run_script

SITE = pytest.StashKey[Site]()
BASELINE = pytest.StashKey[GlobalState]()
RUNS = pytest.StashKey[dict]()
BLESSED = pytest.StashKey[bless.Edits]()


def pytest_addoption(parser):
    group = parser.getgroup("snippet_harness")
    group.addoption(
        "--bless",
        action="store_true",
        help="rewrite each page's Output/Raises fences from the actual runs, keeping a "
        "pattern while it matches; never turns a raise into a pass or back",
    )


def pytest_configure(config):
    if getattr(config.option, "codeblocks", False):
        raise pytest.UsageError(
            "--codeblocks runs pages with pytest-codeblocks' own runner, which ignores includes "
            "and wraps exceptions; this project's harness already checks every page"
        )
    config.stash[SITE] = Site(Path(config.rootpath).resolve())
    config.stash[RUNS] = {}
    config.stash[BLESSED] = bless.Edits()
    config.stash[BASELINE] = GlobalState.capture()  # imports torch, once for every script


def script_runs(config) -> list[dict]:
    """Every script run this session, in order: [{"script": path, "seconds": float}, ...].

    `script` is the file tracebacks name (the snippet, or the page for a block that is more
    than one include); `seconds` is the script's own run, without the harness putting state
    back around it. A script shown whole by a page and checked standalone runs once and is
    listed once. Call it at pytest_sessionfinish, from a plugin of your own loaded with -p.
    """
    return [{"script": key[1], "seconds": r.seconds} for key, r in config.stash[RUNS].items()]


def _run(config, code: str, filename: Path, lines: list[int]) -> Result:
    """Identical runs (a page's whole script and its standalone check) are made once."""
    runs = config.stash[RUNS]
    key = (code, str(filename), tuple(lines))
    if key not in runs:
        site = config.stash[SITE]
        runs[key] = run_script(
            code, filename, site.rel(filename), lines, site.snippets_dir, config.stash[BASELINE]
        )
    return runs[key]


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path: Path, parent):
    collectors = yield
    site = parent.config.stash[SITE]
    path = file_path.resolve()
    if path.suffix == ".md" and path.is_relative_to(site.docs_dir):
        return [*collectors, PageFile.from_parent(parent, path=file_path)]
    if path.suffix == ".py" and path.is_relative_to(site.snippets_dir):
        # Any other collector (pytest's own, for a snippet named on the command line) would
        # import the script as a test module, without __name__ == "__main__".
        return [SnippetFile.from_parent(parent, path=file_path)]
    return collectors


def pytest_sessionfinish(session):
    bless.apply(session.config.stash[BLESSED])


def pytest_terminal_summary(terminalreporter, config):
    if config.getoption("--bless"):
        terminalreporter.write_line(bless.summary(config.stash[BLESSED], config.stash[SITE]))


class HarnessFailure(Exception):
    """A check failed; the message says where and why, no traceback of the harness needed."""


class _Item(pytest.Item):
    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, HarnessFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)


class PageFile(pytest.File):
    def collect(self):
        blocks, problems = self.config.stash[SITE].page(self.path)
        blessing = self.config.getoption("--bless")
        for p in problems:
            yield ProblemItem.from_parent(self, name=f"line {p.lineno}", problem=p)
        for block in blocks:
            if block.outcome.declared or blessing:
                yield BlockItem.from_parent(self, name=f"line {block.lineno}", block=block)
            else:
                message = (
                    f"python block{self.config.stash[SITE].shows(block)} has no declared "
                    'outcome: put a ```text title="Output"``` or ```text title="Raises"``` '
                    "fence right under it (or let --bless add it)"
                )
                problem = Problem(block.page, block.lineno, message)
                yield ProblemItem.from_parent(self, name=f"line {block.lineno}", problem=problem)


class ProblemItem(_Item):
    def __init__(self, *, problem: Problem, **kw):
        super().__init__(**kw)
        self.problem = problem

    def runtest(self):
        site = self.config.stash[SITE]
        raise HarnessFailure(
            f"{site.rel(self.problem.page)}:{self.problem.lineno}: {self.problem.message}"
        )

    def reportinfo(self):
        return self.path, self.problem.lineno - 1, self.name


def _check(config, block: Block, result: Result) -> str | None:
    if config.getoption("--bless"):
        return bless.propose(config.stash[BLESSED], block, result)
    return mismatch(block.outcome, result)


class BlockItem(_Item):
    def __init__(self, *, block: Block, **kw):
        super().__init__(**kw)
        self.block = block

    def runtest(self):
        site = self.config.stash[SITE]
        block = self.block
        filename, lines = block.page, block.lines
        if block.sole_include is not None:
            # The reader sees only the snippet: tracebacks point into it.
            filename = Path(block.sole_include["snippet"])
            lines = _numbered(block.code, site.first_line_of(block.sole_include))
        why = _check(self.config, block, _run(self.config, block.code, filename, lines))
        if why:
            raise HarnessFailure(f"{site.rel(block.page)}:{block.lineno}{site.shows(block)}: {why}")

    def reportinfo(self):
        return self.path, self.block.lineno - 1, self.name


def _numbered(code: str, first: int) -> list[int]:
    return list(range(first, first + code.count("\n") + 1))


class SnippetFile(pytest.File):
    def collect(self):
        yield StandaloneItem.from_parent(self, name="standalone")


class StandaloneItem(_Item):
    """`python snippets/x/y.py` must end as the page that shows the whole file says."""

    def runtest(self):
        site = self.config.stash[SITE]
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
        code = me.read_text(encoding="utf-8")
        result = _run(self.config, code, me, _numbered(code, 1))
        for home in homes:
            where = f"{site.rel(home.page)}:{home.lineno}"
            if not home.outcome.declared and not self.config.getoption("--bless"):
                raise HarnessFailure(f"{rel}: {where} shows it with no declared outcome")
            why = _check(self.config, home, result)
            if why:
                raise HarnessFailure(
                    f"{rel}: run as a script, it does not end as {where} says: {why}"
                )
