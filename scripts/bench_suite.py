"""`make bench`: how fast the snippet suite and the site build are. Figures, not pass/fail.

It appends one row to scripts/bench-history.tsv: these figures and the phase times of the
last whole `make test` (build/phase-times.json), so a step from one row to the next shows a
regression.

The suite pays for one `import torch` and then runs every snippet in-process, so its wall time
should stay close to that import plus the snippets' own run times: the ratio printed last.
Only the pages and snippets are timed (what `make check` runs most); the browser and PDF
checks are proven by `make test`, and timing them here would triple the bench's run time.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import sitekit

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
# Three snippet suites would be a better median, but make bench must stay under 10 minutes on
# a shared machine, with the costs page's full-size measurements and Lighthouse after this.
REPEATS = 2
COLD, WARM = 1, 2


def wall(cmd, env=None) -> float:
    start = time.perf_counter()
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env)
    if run.returncode:
        sys.exit(
            f"{' '.join(cmd)} failed: a benchmark of a failing run means nothing\n"
            f"{run.stdout[-3000:]}{run.stderr[-3000:]}"
        )
    return time.perf_counter() - start


def import_torch() -> tuple[float, float]:
    """A fresh interpreter that imports torch: its wall time, and the import statement alone.

    The wall time is the floor for any suite: one interpreter, one torch import.
    """
    code = "import time; t = time.perf_counter(); import torch; print(time.perf_counter() - t)"
    start = time.perf_counter()
    out = subprocess.run([PY, "-c", code], capture_output=True, text=True, check=True).stdout
    return time.perf_counter() - start, float(out)


def snippet_suite(timings: Path) -> tuple[float, float, int]:
    """Wall time of pytest over the pages and snippets, the scripts' own time, and run count."""
    path = os.pathsep.join(filter(None, [str(ROOT / "scripts"), os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, BENCH_TIMINGS=str(timings), PYTHONPATH=path)
    cmd = [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "bench_timings"]
    seconds = wall([*cmd, "docs", "snippets"], env=env)
    runs = json.loads(timings.read_text())
    return seconds, sum(r["seconds"] for r in runs), len(runs)


def mkdocs_build(site: Path, cold: bool) -> float:
    if cold:
        # The executed notebook is cached where make points NOTEBOOK_CACHE (mkdocs.yml).
        cache = os.environ.get("NOTEBOOK_CACHE", ".cache/mkdocs-jupyter")
        shutil.rmtree(ROOT / cache, ignore_errors=True)
        shutil.rmtree(site, ignore_errors=True)
    return wall([PY, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--keep-site", type=Path, help="build into this folder and leave it (for Lighthouse)"
    )
    args = parser.parse_args()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        site = args.keep_site.resolve() if args.keep_site else tmp / "site"
        imports = [import_torch() for _ in range(3)]
        suites = [snippet_suite(tmp / f"timings{i}.json") for i in range(REPEATS)]
        cold = [mkdocs_build(site, cold=True) for _ in range(COLD)]
        warm = [mkdocs_build(site, cold=False) for _ in range(WARM)]

    suite = statistics.median(s[0] for s in suites)
    own = statistics.median(s[1] for s in suites)
    imp = statistics.median(i[0] for i in imports)
    statement = statistics.median(i[1] for i in imports)
    snippets = len([p for p in (ROOT / "snippets").rglob("*.py") if "__pycache__" not in p.parts])
    rows = [
        ("snippets", f"{snippets}"),
        ("distinct script runs per suite", f"{suites[0][2]}"),
        ("snippet suite wall time (pytest docs snippets)", f"{suite:.2f} s"),
        ("python -c 'import torch' (process wall time)", f"{imp:.2f} s"),
        ("  of which the import statement", f"{statement:.2f} s"),
        ("sum of the snippets' own run times", f"{own:.3f} s"),
        ("ratio suite / (import + sum), target <= 1.5", f"{suite / (imp + own):.2f}"),
        (
            f"mkdocs build --strict, cold (no notebook cache), median of {COLD}",
            f"{statistics.median(cold):.2f} s",
        ),
        (f"mkdocs build --strict, warm, median of {WARM}", f"{statistics.median(warm):.2f} s"),
    ]
    width = max(len(name) for name, _ in rows)
    print(f"median of {REPEATS} suites and 3 imports, Python {sys.version.split()[0]}")
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    print(f"(the suite and build figures took {time.perf_counter() - start:.0f} s)")
    record(suite, statistics.median(cold), statistics.median(warm))


HISTORY = ROOT / "scripts" / "bench-history.tsv"
# The phases of `make test` that the history keeps, as tests/conftest.py names them.
PHASES = (
    "snippets",
    "built site",
    "browser",
    "PDF and offline copy",
    "diagnose command",
    "other CPUs' kernels",
    "other tests",
)
COLUMNS = (
    "date",
    "commit",
    "load",
    "snippet suite s",
    "build cold s",
    "build warm s",
    "make test commit",
    "make test pytest s",
    "make test workers",
    "passed",
    *(f"{p} s" for p in PHASES),
    "site build s",
)


def record(suite: float, cold: float, warm: float):
    """One row more in the history: this bench's figures, and the phases of the last whole
    `make test` on this checkout (tests/conftest.py writes them to build/phase-times.json),
    so that a regression shows as a step from one row to the next."""
    head = sitekit.commit(ROOT)
    last = ROOT / "build" / "phase-times.json"
    test = json.loads(last.read_text()) if last.is_file() else {}
    phases, background = test.get("phases", {}), test.get("background", {})
    row = [
        time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
        head,
        f"{os.getloadavg()[0]:.1f}",
        f"{suite:.0f}",
        f"{cold:.0f}",
        f"{warm:.0f}",
        test.get("commit", "none"),
        str(test.get("pytest seconds", "")),
        str(test.get("workers", 1)),
        str(test.get("passed", "")),
        *(str(phases.get(p, "")) for p in PHASES),
        str(background.get("site build", "")),
    ]
    if not HISTORY.exists():
        HISTORY.write_text("\t".join(COLUMNS) + "\n")
    with HISTORY.open("a") as history:
        history.write("\t".join(row) + "\n")
    if test.get("commit", "") != head:
        ran = test.get("commit", "no commit")
        print(f"note: the last whole make test ran on {ran}, not {head}")
    print(f"history: {HISTORY.relative_to(ROOT)} (one row per make bench)")


if __name__ == "__main__":
    main()
