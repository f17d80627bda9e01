"""Running a script as `python snippet.py` would, in pytest's own process.

torch is imported once; each script then runs here, with `__name__ == "__main__"`, its own
`__file__`, `sys.argv` and `sys.path[0]`, and everything it changed that the next script would
inherit is put back after it (isolation.py; modules imported from snippets/ are dropped, so the
next script imports them fresh). What cannot be cleanly put back fails the script that left it.

Why not a fork of this process per script, which would need nothing put back:
scripts/bench_isolation.py runs `pytest docs snippets` both ways. When the site had 152
scripts, on this project's machine (2 cores shared with other jobs; medians of 3 runs each,
everything passing both ways) this design took 27.8 s and the fork one 69.2 s; with
`import torch` at 3.3 s and the scripts' own work at 18.6 s, that is 1.27 against 3.16 for the
target suite / (import + scripts) <= 1.5. Each forked child pays again for what one process
pays once: the fork of a process holding torch, and the first use of what torch sets up
lazily. The fork design also has to import in the parent whatever a script imported
(torch.optim imports torch._dynamo on first use, for seconds), must never run a torch
operation there (OpenMP's thread pool does not survive a fork: a child waits on it forever),
and so needs timeouts.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import sys
import time
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path

from .isolation import GlobalState


@dataclass
class Raised:
    """The exception a script ended with, as its traceback's last lines print it."""

    name: str
    message: str  # after "name:"
    final: str  # the whole last line(s), as `--bless` writes them into a Raises block
    traceback: str


@dataclass
class Result:
    stdout: str
    error: Raised | None
    seconds: float
    leaked: list[str]  # process-wide state it left that could not be cleanly put back


def exception_name(error: BaseException) -> str:
    """The name as the last line of a traceback prints it."""
    cls = type(error)
    if cls.__module__ in ("builtins", "__main__"):
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"


def raised(error: BaseException) -> Raised:
    final = "".join(traceback.format_exception_only(error)).strip()
    tb = "".join(traceback.format_exception(error)[1:])
    return Raised(exception_name(error), final.partition(":")[2], final, tb)


def run_script(path: Path, argv0: str, local: Path, baseline: GlobalState) -> Result:
    """Run the file at `path` as `python <argv0>` would; `local`: the folder of the scripts and
    their own modules; `baseline`: the state every script starts from."""
    module_globals = {
        "__name__": "__main__",
        "__file__": str(path),
        "__builtins__": builtins,
        "__doc__": None,
        "__spec__": None,
        "__package__": None,
        "__loader__": None,
        "__cached__": None,
    }
    before_modules = set(sys.modules)
    argv, path0 = sys.argv, list(sys.path)
    sys.argv = [argv0]
    sys.path.insert(0, str(path.parent))
    out = io.StringIO()
    error = None
    baseline.restore()
    start = time.perf_counter()
    try:
        # Warnings go to stderr, which pages do not show; keep them out of pytest's summary.
        with warnings.catch_warnings(record=True), contextlib.redirect_stdout(out):
            # Not inheriting keeps the harness's own `from __future__` imports out of it.
            code = compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
            exec(code, module_globals)
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # noqa: BLE001 - SystemExit is an outcome a page can declare
        # The traceback starts in the script, as `python` prints it, not in this function.
        error = raised(e.with_traceback(e.__traceback__.tb_next))
    seconds = time.perf_counter() - start
    sys.argv, sys.path[:] = argv, path0
    for name in set(sys.modules) - before_modules:
        # A helper imported from snippets/ must be re-imported fresh by the next script.
        origin = getattr(sys.modules[name], "__file__", None) or ""
        if origin.startswith(str(local)):
            del sys.modules[name]
    return Result(out.getvalue(), error, seconds, baseline.restore())
