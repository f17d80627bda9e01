"""pytest wiring: one test item per snippet, the page problems, `--bless`, `--no-processes`,
`script_runs(config)`."""

from __future__ import annotations

import importlib.metadata
import os
from pathlib import Path

import pytest
from packaging.version import Version

from . import bless
from .fences import Block, Problem
from .isolation import GlobalState
from .outcome import mismatch
from .pages import Site
from .processes import starts_processes
from .run import Result, run_script

SITE = pytest.StashKey[Site]()
BASELINE = pytest.StashKey[GlobalState]()
RUNS = pytest.StashKey[list]()
BLESSED = pytest.StashKey[bless.Edits]()
DESELECTED = pytest.StashKey[list]()
# The torch the scripts run on, as outcome fences titled for releases name it.
TORCH = Version(Version(importlib.metadata.version("torch")).public)


def pytest_addoption(parser):
    group = parser.getgroup("snippet_harness")
    group.addoption(
        "--bless",
        action="store_true",
        help="rewrite each page's Output/Raises fences from the actual runs, keeping a "
        "pattern while it matches; never turns a raise into a pass or back",
    )
    group.addoption(
        "--no-processes",
        action="store_true",
        help="deselect the scripts that start processes (the DDP ones), for a fast inner loop",
    )


def pytest_configure(config):
    # Installed in the venv, the plugin loads in every pytest run there; it acts on MkDocs
    # projects only.
    if (Path(config.rootpath) / "mkdocs.yml").is_file():
        share_the_cores(config)
        workers = getattr(config.option, "numprocesses", None)
        if config.getoption("--bless") and (workers or hasattr(config, "workerinput")):
            # Each worker would rewrite the pages it ran, over the other's edits.
            raise pytest.UsageError("--bless rewrites pages: run it without -n")
        config.stash[SITE] = Site(Path(config.rootpath).resolve())
        config.stash[RUNS] = []
        config.stash[BLESSED] = bless.Edits()
        config.stash[DESELECTED] = []


def share_the_cores(config):
    """An xdist worker of n takes its share of the cores for torch's thread pool, before torch
    is imported, and passes it to the processes it starts (ranks, the diagnose command): with
    every worker using every core, OpenMP's threads spin waiting on each other (a page's
    scripts on two workers took 37 CPU seconds, 24 with one thread each)."""
    workers = getattr(config, "workerinput", {}).get("workercount")
    if workers and "OMP_NUM_THREADS" not in os.environ:
        os.environ["OMP_NUM_THREADS"] = str(max(1, (os.cpu_count() or 1) // workers))


def script_runs(config) -> list[dict]:
    """Every script run this session, in order: [{"script": path, "seconds": float}, ...].

    Each snippet runs once, however many pages show it; `seconds` is the script's own run,
    without the harness putting state back around it. Call it at pytest_sessionfinish, from a
    plugin of your own loaded with -p.
    """
    return list(config.stash[RUNS])


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path: Path, parent):
    collectors = yield
    site = parent.config.stash.get(SITE, None)
    if site is None:
        return collectors
    path = file_path.resolve()
    if path.suffix == ".md" and path.is_relative_to(site.docs_dir):
        return [*collectors, PageFile.from_parent(parent, path=file_path)]
    if path.suffix == ".py" and path.is_relative_to(site.snippets_dir):
        # Any other collector (pytest's own, for a snippet named on the command line) would
        # import the script as a test module, without __name__ == "__main__".
        return [SnippetFile.from_parent(parent, path=file_path)]
    return collectors


def pytest_collection_modifyitems(config, items):
    if SITE not in config.stash:
        return
    # A snippet collected from its page and from snippets/ is one test (and a snippet shown
    # only in excerpts one failure): the first one stays.
    seen = set()
    unique = []
    for item in items:
        key = getattr(item, "key", None)
        if key is None or key not in seen:
            seen.add(key)
            unique.append(item)
    items[:] = unique
    if config.getoption("--no-processes"):
        gone = [i for i in items if isinstance(i, RunItem) and starts_processes(i.snippet)]
        if gone:
            items[:] = [i for i in items if i not in gone]
            config.hook.pytest_deselected(items=gone)
            config.stash[DESELECTED] = gone


def pytest_report_collectionfinish(config):
    if config.getoption("--no-processes") and SITE in config.stash:
        gone = config.stash[DESELECTED]
        return (
            f"--no-processes: {len(gone)} scripts that start processes deselected "
            "(pytest without the option runs them)"
        )
    return None


def pytest_sessionfinish(session):
    if BLESSED in session.config.stash:
        bless.apply(session.config.stash[BLESSED])


def pytest_terminal_summary(terminalreporter, config):
    if config.getoption("--bless") and SITE in config.stash:
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
        site = self.config.stash[SITE]
        blocks, problems = site.page(self.path)
        for p in problems:
            yield ProblemItem.from_parent(self, name=f"line {p.lineno}", problem=p)
        for block in blocks:
            if block.excerpt is None:
                item = ModuleItem if is_module(block.snippet) else RunItem
                yield item.from_parent(self, name=site.rel(block.snippet), snippet=block.snippet)
            elif why := site.excerpt_problem(block):
                problem = Problem(block.page, block.lineno, why)
                key = None if site.homes(block.snippet) else _key(block.snippet)
                yield ProblemItem.from_parent(
                    self, name=f"line {block.lineno}", problem=problem, key=key
                )


def is_module(snippet: Path) -> bool:
    """A file of a package (a folder with __init__.py) under snippets/: a part of a program
    the scripts import, not a script. Pages show it whole, as its code; it is not run, and the
    tests of what imports it are its tests (the diagnose command's parts)."""
    return (snippet.parent / "__init__.py").is_file()


def _key(snippet: Path) -> tuple | None:
    """What a snippet shown only in excerpts fails under, once, from its page or its file."""
    return ("not shown whole", snippet.resolve())


class SnippetFile(pytest.File):
    def collect(self):
        site = self.config.stash[SITE]
        path = self.path.resolve()
        if site.homes(path):
            if is_module(path):
                yield ModuleItem.from_parent(self, name="module", snippet=path)
            else:
                yield RunItem.from_parent(self, name="run", snippet=path)
            return
        parts = ", ".join(site.where(b) for b in site.shown(path))
        message = (
            f"pages show only excerpts of it ({parts}); show the whole script once, with "
            "its outcome, so readers can copy and run it"
            if parts
            else "no page shows this snippet; use it or delete it"
        )
        problem = Problem(path, 1, message)
        yield ProblemItem.from_parent(self, name="shown", problem=problem, key=_key(path))


class ProblemItem(_Item):
    def __init__(self, *, problem: Problem, key: tuple | None = None, **kw):
        super().__init__(**kw)
        self.problem = problem
        self.key = key

    def runtest(self):
        site = self.config.stash[SITE]
        raise HarnessFailure(
            f"{site.rel(self.problem.page)}:{self.problem.lineno}: {self.problem.message}"
        )

    def reportinfo(self):
        return self.path, self.problem.lineno - 1, self.name


class RunItem(_Item):
    """The snippet runs once, as `python snippets/x/y.py`, and ends as every page that shows
    it whole says it does on this torch."""

    def __init__(self, *, snippet: Path, **kw):
        super().__init__(**kw)
        self.snippet = snippet.resolve()
        self.key = ("run", self.snippet)

    def runtest(self):
        config, site = self.config, self.config.stash[SITE]
        if BASELINE not in config.stash:
            config.stash[BASELINE] = GlobalState.capture()  # imports torch, once for all
        rel = site.rel(self.snippet)
        result = run_script(self.snippet, rel, site.snippets_dir, config.stash[BASELINE])
        config.stash[RUNS].append({"script": str(self.snippet), "seconds": result.seconds})
        failures = [
            f"{site.where(home)} ({rel}): {why}"
            for home in site.homes(self.snippet)
            if (why := self._check(home, result))
        ]
        if failures:
            raise HarnessFailure("\n".join(failures))

    def _check(self, block: Block, result: Result) -> str | None:
        blessing = self.config.getoption("--bless")
        outcome = block.outcome(TORCH)
        if isinstance(outcome, str):
            return outcome
        if not outcome.declared and not blessing:
            return (
                'no declared outcome: put a ```text title="Output"``` or '
                '```text title="Raises"``` fence right under it (or let --bless add it)'
            )
        if blessing:
            return bless.propose(self.config.stash[BLESSED], block, outcome, result)
        return mismatch(outcome, result)

    def reportinfo(self):
        # Not its name: pytest would show a name with dots in it as a dotted path.
        return self.snippet, 0, f"python {self.config.stash[SITE].rel(self.snippet)}"


class ModuleItem(_Item):
    """A module of a package, shown whole: not run, so it has no outcome fences of its own."""

    def __init__(self, *, snippet: Path, **kw):
        super().__init__(**kw)
        self.snippet = snippet.resolve()
        self.key = ("module", self.snippet)

    def runtest(self):
        site = self.config.stash[SITE]
        rel = site.rel(self.snippet)
        failures = [
            f"{site.where(home)} ({rel}): a module of a package is imported, not run as a "
            "script: it has no outcome of its own; remove the fences under it"
            for home in site.homes(self.snippet)
            if home.fences
        ]
        if failures:
            raise HarnessFailure("\n".join(failures))

    def reportinfo(self):
        return self.snippet, 0, f"module {self.config.stash[SITE].rel(self.snippet)}"
