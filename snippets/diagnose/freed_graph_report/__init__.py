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

from .report import OUTSIDE, Report, report_error
from .watching import MESSAGE, _as_list, _stack_here, recording


@contextlib.contextmanager
def watch():
    """Record what a report needs while the block runs; report the
    error if it is raised in it. Nested or repeated use is fine."""
    try:
        with recording(report_error):
            yield
    except RuntimeError as error:
        if MESSAGE in str(error) and not hasattr(error, "_reported"):
            error._reported = (
                True  # raised outside backward() and grad()
            )
            print("\n".join(OUTSIDE))
            error.add_note(OUTSIDE[-1])
        raise


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
    """python freed_graph_report.py script.py [args]: run script.py as
    `python script.py [args]` would, watched."""
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python freed_graph_report.py script.py [args]")
        return
    sys.argv = list(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
    with watch():
        runpy.run_path(argv[0], run_name="__main__")
