"""How the snippet suite isolates scripts: in pytest's process, or a fork of it per script.

    .venv/bin/python scripts/bench_isolation.py [--repeats N]

Runs `pytest docs snippets` N times each way, taking turns, and prints the medians:

- in-process: the harness as it is (tools/snippet_harness/run.py): every script runs in
  pytest's own process, which puts global state back after each one;
- fork: the same harness with its runner replaced by the one below (this file is also that
  pytest plugin, -p bench_isolation): torch is imported once in pytest's process and each script
  runs in a child forked from it, which sends back stdout and the exception through a pipe, and
  is killed after a timeout. The parent imports what each child imported (or every child would
  pay for torch._dynamo, which torch.optim imports on first use) and never runs torch itself
  (OpenMP's thread pool does not survive a fork).

For each: wall time of the suite, the sum of the script run times the harness measured, and
suite / (import torch + the in-process scripts' sum), whose target is <= 1.5; and whether every
item passed. Both designs run the same pages with the same checks.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import os
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
SUITE = [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "docs", "snippets"]
TIMEOUT = 600


# ---- the plugin: the fork-per-script runner, and the run times of either -------------------


def pytest_configure(config):
    import torch
    from snippet_harness import plugin

    config.bench_rng = torch.get_rng_state()  # each child starts from it, as in-process
    if os.environ.get("BENCH_ISOLATION") == "fork":
        plugin.run_script = lambda *args: fork_run_script(config.bench_rng, *args)


def pytest_sessionfinish(session):
    from snippet_harness.plugin import script_runs

    Path(os.environ["BENCH_ISOLATION_RUNS"]).write_text(json.dumps(script_runs(session.config)))


def fork_run_script(rng, filename, argv0, local, baseline):
    from snippet_harness.run import Raised, Result

    compiled = compile(filename.read_bytes(), str(filename), "exec", dont_inherit=True)
    sys.stdout.flush()
    sys.stderr.flush()
    read_fd, write_fd = os.pipe()
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _child(rng, compiled, filename, argv0, local, write_fd)
    os.close(write_fd)
    data, deadline = b"", start + TIMEOUT
    with os.fdopen(read_fd, "rb", buffering=0) as pipe:
        while select.select([pipe], [], [], max(0, deadline - time.perf_counter()))[0]:
            chunk = pipe.read(1 << 16)
            if not chunk:
                break
            data += chunk
        else:
            os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    seconds = time.perf_counter() - start
    try:
        report = json.loads(data)
    except ValueError:
        return Result("", Raised("Killed", f" status {status}", "Killed", ""), seconds, [])
    for name in report["imported"]:
        if name not in sys.modules:
            with contextlib.suppress(Exception):
                importlib.import_module(name)
    error = Raised(**report["error"]) if report["error"] else None
    return Result(report["stdout"], error, seconds, [])


def _child(rng, compiled, filename, argv0, local, write_fd):
    from snippet_harness.run import raised

    try:
        sys.modules["torch"].set_rng_state(rng)
        sys.argv = [argv0]
        sys.path.insert(0, str(filename.parent))
        module_globals = {"__name__": "__main__", "__file__": str(filename), "__doc__": None}
        out, error, before = io.StringIO(), None, set(sys.modules)
        try:
            with contextlib.redirect_stdout(out):
                exec(compiled, module_globals)
        except BaseException as e:  # noqa: BLE001
            error = vars(raised(e))
        imported = [
            n
            for n, m in list(sys.modules.items())
            if n not in before and not (getattr(m, "__file__", "") or "").startswith(str(local))
        ]
        report = {"stdout": out.getvalue(), "error": error, "imported": imported}
        with os.fdopen(write_fd, "wb") as pipe:
            pipe.write(json.dumps(report).encode())
    finally:
        os._exit(0)


# ---- the benchmark --------------------------------------------------------------------------


def suite(design: str, tmp: Path) -> dict:
    runs = tmp / f"{design}.json"
    env = dict(os.environ, BENCH_ISOLATION=design, BENCH_ISOLATION_RUNS=str(runs))
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "scripts"), env.get("PYTHONPATH", "")])
    start = time.perf_counter()
    done = subprocess.run(
        [*SUITE, "-p", "bench_isolation"], cwd=ROOT, capture_output=True, text=True, env=env
    )
    wall = time.perf_counter() - start
    own = json.loads(runs.read_text()) if runs.exists() else []
    summary = (done.stdout.strip().splitlines() or [""])[-1]
    return dict(
        wall=wall,
        own=sum(r["seconds"] for r in own),
        n=len(own),
        summary=summary,
        ok=done.returncode == 0,
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    designs = ("in-process", "fork")
    results: dict[str, list[dict]] = {d: [] for d in designs}
    imports = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeats):
            start = time.perf_counter()
            subprocess.run([PY, "-c", "import torch"], check=True)
            imports.append(time.perf_counter() - start)
            for design in designs:
                r = suite(design, Path(tmp))
                results[design].append(r)
                print(
                    f"run {i + 1} {design:<10} {r['wall']:6.2f} s wall, {r['own']:6.2f} s "
                    f"in {r['n']} script runs; {r['summary']}",
                    flush=True,
                )
    imp = statistics.median(imports)
    work = statistics.median(r["own"] for r in results["in-process"])
    print(
        f"\nmedians of {args.repeats}: python -c 'import torch' {imp:.2f} s, "
        f"the scripts' own work (in-process) {work:.2f} s"
    )
    for design, rows in results.items():
        wall = statistics.median(r["wall"] for r in rows)
        own = statistics.median(r["own"] for r in rows)
        passed = "all passed" if all(r["ok"] for r in rows) else "FAILED"
        print(
            f"{design:<10} suite {wall:6.2f} s, script runs {own:6.2f} s, "
            f"suite/(import+work) {wall / (imp + work):.2f} (target <= 1.5), {passed}"
        )


if __name__ == "__main__":
    main()
