"""freed_graph_report.py: when "Trying to backward through the graph a
second time" is raised, name the value that reuses a freed graph, where
your program keeps it, the backward that freed it, and the fix the
measured facts point to (or two, and the question that decides).

    python freed_graph_report.py your_script.py [its arguments]

runs your script unchanged, as `python your_script.py` would. In a
notebook cell or a script, `with watch():` around the code does the
same. When the error is raised, the report is printed and its last
lines (the fix and the page that explains it) are added to the error,
which is raised as before. `report_freed(loss)`, called before a
backward, prints the same report without waiting for the error.

Plain PyTorch, one file, made of four parts that each use only the
ones before them: watching (the records kept while the program runs),
facts (one plain record per failure: order, holder, staleness,
ownership, caller), rules (a table: the first rule that holds for the
facts gives the verdict; `rule:` names it) and the report that prints
them. The `see:` address explains the fix; the diagnose page lists
every rule.
"""

import contextlib
import os
import runpy
import sys

from .report import OUTSIDE, Report, Reporter, check_lines
from .watching import (
    _STEPS,
    _WATCHING,
    MESSAGE,
    StepsDone,
    _as_list,
    _stack_here,
    recording,
)

USAGE = (
    "usage: python freed_graph_report.py [--steps N] script.py [args]"
)


@contextlib.contextmanager
def watch():
    """Record what a report needs while the block runs; report the
    error if it is raised in it, and print the checks of the run when
    it ends. Nested or repeated use is fine."""
    outermost = not _WATCHING
    with _watched():
        yield
    if outermost:
        _print_checks()


@contextlib.contextmanager
def _watched():
    try:
        with recording(Reporter()):
            yield
    except RuntimeError as error:
        if MESSAGE in str(error) and not hasattr(error, "_reported"):
            # Raised outside backward() and grad().
            error._reported = True
            print("\n".join(OUTSIDE))
            error.add_note(OUTSIDE[-1])
        raise


def _print_checks():
    try:
        lines = check_lines()
    except Exception as failure:  # noqa: BLE001
        lines = [f"freed_graph_report.py failed: {failure!r}"]
    if lines:
        print("\n".join(lines))


def report_freed(tensor):
    """Print the report for the graph behind `tensor`, before the
    backward that would fail; return the nodes a backward already ran
    there (an empty list if none)."""
    roots = [t.grad_fn for t in _as_list(tensor) if t.grad_fn]
    try:
        report = Report(roots, _stack_here())
        print("\n".join(report.lines()))
    except Exception as failure:  # noqa: BLE001
        print(f"freed_graph_report.py failed: {failure!r}")
        return []
    return sorted(report.facts.old, key=lambda n: n._sequence_nr())


def main(argv):
    """python freed_graph_report.py [--steps N] script.py [args]: run
    script.py as `python script.py [args]` would, watched; with
    --steps, stop it after N optimizer steps and print the checks."""
    steps, argv = _steps(argv)
    if not argv or argv[0] in ("-h", "--help") or steps == 0:
        print(USAGE)
        return
    sys.argv = list(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
    _STEPS[1] = steps
    try:
        with _watched():
            # Its variables, kept until the checks are read: a check
            # asks whether a tensor was written since the last step.
            script = runpy.run_path(argv[0], run_name="__main__")
    except StepsDone:
        _print_checks()
        print(f"freed_graph_report: stopped after {steps} steps")
        return
    except SystemExit:
        _print_checks()
        raise
    _print_checks()
    del script


def _steps(argv):
    """`--steps N` or `--steps=N` first: (N, the rest); 0 if N is not
    a whole number above 0; (None, argv) without it."""
    if not argv or not argv[0].startswith("--steps"):
        return None, argv
    flag, _, value = argv[0].partition("=")
    rest = argv[1:]
    if flag != "--steps":
        return None, argv
    if not value and rest:
        value, rest = rest[0], rest[1:]
    return (int(value) if value.isdigit() else 0), rest
