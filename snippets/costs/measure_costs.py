"""What each fix costs: memory, time, and the carried-state leak.

`make bench` runs this with --write: full sizes, each memory figure
in a fresh process, results written to docs/costs/. Without --write
(as the tests run it) the same code runs on tiny sizes, in this
process, and only the checks below are printed: the facts the Costs
page concludes from, true at any size.
"""

import contextlib
import datetime
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import psutil
import torch
from cycler import cycler
from workloads import MODELS, SavedTensors, Tagger, loss_of, tbptt

OUT = Path(__file__).resolve().parents[2] / "docs" / "costs"
FULL = dict(batch={"mlp": 8192, "cnn": 1024, "lstm": 512}, repeats=15)
FULL.update(leak_batch=256, chunks=12, leak_runs=5)
QUICK = dict(batch={"mlp": 4, "cnn": 4, "lstm": 4}, repeats=1)
QUICK.update(leak_batch=2, chunks=3, leak_runs=1)
LEAKS = {  # name: (retain_graph, detach the carried state)
    "retain, carried": (True, False),
    "retain, detached": (True, True),
    "the fix: detach": (False, True),
}
MiB = 2**20


def rss():
    return psutil.Process().memory_info().rss


def reset_peak_rss():
    # Linux: start the peak (VmHWM) over from the current RSS.
    # Elsewhere the peak counts from the start of the process.
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def peak_rss():
    status = Path("/proc/self/status")
    if status.exists():
        # Not getrusage(): there a new process starts out with the
        # peak of the process that started it.
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def memory(name, batch, retain):
    """Saved bytes (exact), and process memory above the start."""
    torch.manual_seed(0)
    model, x, y = MODELS[name](batch)
    # Warm up on two samples: lazy setup is not the graph's cost.
    loss_of(model, x[:2], y[:2]).backward()
    model.zero_grad(set_to_none=True)
    start = rss()
    reset_peak_rss()
    with SavedTensors(model) as saved:
        loss = loss_of(model, x, y)
    forward = saved.held()
    loss.backward(retain_graph=retain)
    result = dict(
        saved=forward,
        held_saved=saved.held(),
        peak=peak_rss() - start,
        held=rss() - start,
        grads=sum(p.grad.nbytes for p in model.parameters()),
    )
    # What stays is then neither the graph nor the gradients.
    del loss
    model.zero_grad(set_to_none=True)
    return dict(result, rest=rss() - start)


def two_passes(name, batch, repeats):
    """Two backward passes: over a retained graph, or recomputed."""
    torch.manual_seed(0)
    model, x, y = MODELS[name](batch)

    def retain():
        loss = loss_of(model, x, y)
        loss.backward(retain_graph=True)
        loss.backward()

    def recompute():
        loss_of(model, x, y).backward()
        loss_of(model, x, y).backward()

    # Other work on the machine slows some runs, never speeds one up:
    # keep the fastest run of each. The two take turns, so that a
    # slow spell of the machine falls on both.
    runs, grads = {retain: [], recompute: []}, {}
    for _ in range(repeats + 1):  # the first round warms up
        for way in runs:
            model.zero_grad(set_to_none=True)
            start = time.perf_counter()
            way()
            runs[way].append(time.perf_counter() - start)
            grads[way] = [p.grad for p in model.parameters()]
    times = {way.__name__: min(t[1:]) for way, t in runs.items()}
    same = all(
        torch.allclose(a, b, rtol=1e-4, atol=1e-6)
        for a, b in zip(grads[retain], grads[recompute])
    )
    return dict(times, same_gradients=same)


def leak(variant, batch, chunks):
    """Memory and time after each chunk of one long sequence."""
    torch.manual_seed(0)
    model = Tagger()
    x = torch.randn(batch, 10 * chunks, 32)
    y = torch.randint(10, (batch, 10 * chunks))
    list(tbptt(model, x[:2, :20], y[:2, :20], False, True))  # warm up
    model.zero_grad(set_to_none=True)
    start = rss()
    steps = {"rss": [], "saved": [], "seconds": []}
    with SavedTensors(model) as saved:
        clock = time.perf_counter()
        for _ in tbptt(model, x, y, *LEAKS[variant]):
            steps["seconds"].append(time.perf_counter() - clock)
            steps["rss"].append(rss() - start)
            steps["saved"].append(saved.held())
            clock = time.perf_counter()
    return steps


def in_fresh_process(function, *args):
    """RSS is only clean in a process that measured nothing else."""
    argv = ["--child", function.__name__, json.dumps(args)]
    # glibc keeps freed blocks for reuse unless told otherwise; then
    # RSS would stay up after backward freed the graph.
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="65536")
    done = subprocess.run(
        [sys.executable, __file__, *argv],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def measure(size, fresh):
    run = in_fresh_process if fresh else (lambda f, *a: f(*a))
    results = {"memory": {}, "time": {}, "leak": {}}
    for name, batch in size["batch"].items():
        for retain in (False, True):
            key = name, retain
            results["memory"][key] = run(memory, name, batch, retain)
        results["time"][name] = two_passes(name, batch, size["repeats"])
    # The variants take turns, so that a slow spell of the machine
    # falls on all of them, not on every run of one.
    runs = {variant: [] for variant in LEAKS}
    for _ in range(size["leak_runs"]):
        for variant in LEAKS:
            args = variant, size["leak_batch"], size["chunks"]
            runs[variant].append(run(leak, *args))
    for variant, done in runs.items():
        # Memory is the same every run; time: each chunk's fastest.
        seconds = zip(*(r["seconds"] for r in done))
        fastest = [min(chunk) for chunk in seconds]
        results["leak"][variant] = dict(done[0], seconds=fastest)
    return results


def checks(results):
    memory, leaks = results["memory"], results["leak"]
    grows = leaks["retain, carried"]["saved"]
    return {
        "backward() holds no saved tensor": not any(
            memory[name, False]["held_saved"] for name in MODELS
        ),
        "retain_graph=True holds all of them": all(
            memory[name, True]["held_saved"]
            == memory[name, True]["saved"]
            for name in MODELS
        ),
        "retain and recompute, same gradients": all(
            t["same_gradients"] for t in results["time"].values()
        ),
        "carried + retain grows every chunk": all(
            a < b for a, b in zip(grows, grows[1:])
        ),
        "detach holds nothing after a chunk": not any(
            leaks["the fix: detach"]["saved"]
        ),
    }


def machine():
    cpu = platform.processor() or platform.machine()
    if Path("/proc/cpuinfo").exists():
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    ram = psutil.virtual_memory().total / 2**30
    return (
        f"{cpu}, {os.cpu_count()} cores ({torch.get_num_threads()} "
        f"torch threads), {ram:.0f} GiB RAM; "
        f"{platform.system()}, Python {platform.python_version()}, "
        f"torch {torch.__version__}; "
        f"{datetime.date.today().isoformat()}"
    )


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |"]
    lines.append("|---" + "|--:" * (len(header) - 1) + "|")
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines + [""]


def mb(n, signed=True):
    return f"{n / MiB:{'+' if signed else ''}.1f} MiB"


def ms(seconds):
    """Rounded as the tables show it; sentences compute from this."""
    return round(seconds * 1e3)


def which(names, every):
    """The models a sentence holds for, in words."""
    if list(names) == list(every):
        return "every model"
    if not names:
        return "no model"
    *rest, last = [f"the {n}" for n in names]
    return f"{', '.join(rest)} and {last}" if rest else last


WAYS = ["`backward()`", "`retain_graph=True`"]


def memory_part(mem, batches):
    """The first table, and what follows from it in this run."""
    models = [name for name, _ in batches]
    text = ["**One forward and backward pass, on the CPU:**", ""]
    text += table(
        ["model (batch)", "saved by the forward (counted)"]
        + [f"peak RSS, {w}" for w in WAYS]
        + [f"RSS held after, {w}" for w in WAYS],
        [
            [f"{name} ({batch})", mb(mem[name, True]["saved"], False)]
            + [mb(mem[name, r]["peak"]) for r in (False, True)]
            + [mb(mem[name, r]["held"]) for r in (False, True)]
            for name, batch in batches
        ],
    )
    plain = {n: mem[n, False] for n in models}
    kept = {n: mem[n, True] for n in models}
    held = [n for n in models if kept[n]["held"] > plain[n]["held"]]
    rise = {n: kept[n]["peak"] - plain[n]["peak"] for n in models}
    rose = [n for n in models if rise[n] > 0]
    kept_vs_plain = "; ".join(
        f"the {n}, {mb(kept[n]['held'])} against {mb(plain[n]['held'])}"
        for n in models
    )
    left = "; ".join(
        f"the {n}'s {mb(plain[n]['held'])} include its new gradients "
        f"({mb(plain[n]['grads'], False)}), and {mb(plain[n]['rest'])}"
        " stayed once they and `loss` were deleted"
        for n in models
    )
    peaks = "; ".join(
        f"the {n}'s by {mb(rise[n])}, "
        f"{rise[n] / kept[n]['saved']:.0%} of what its graph saved"
        for n in models
    )
    return text + [
        "In this run:",
        "",
        "- **After the pass, `retain_graph=True` held more memory than "
        f"`backward()` for {which(held, models)}**: {kept_vs_plain}.",
        "- **What `backward()` left is not the graph**, which holds no"
        f" saved tensor by then: {left}.",
        "- **`retain_graph=True` raised the peak for "
        f"{which(rose, models)}**: {peaks}.",
        "",
    ]


def time_part(results, batches, repeats):
    mem, models = results["memory"], [name for name, _ in batches]
    shown = {
        n: (ms(t["retain"]), ms(t["recompute"]))
        for n, t in results["time"].items()
    }
    costs = {n: f"{c / r - 1:+.0%}" for n, (r, c) in shown.items()}
    text = [
        "**Two backward passes, on the CPU** (each time: the fastest "
        f"of {repeats} runs; recomputing costs: the second time over "
        "the first, minus one):",
        "",
    ]
    text += table(
        [
            "model (batch)",
            "retain, backward again",
            "recompute forward and backward",
            "recomputing costs",
            "retain holds in between",
        ],
        [
            [
                f"{name} ({batch})",
                f"{shown[name][0]} ms",
                f"{shown[name][1]} ms",
                costs[name],
                mb(mem[name, True]["saved"], False),
            ]
            for name, batch in batches
        ],
    )
    slower = [n for n in models if shown[n][1] > shown[n][0]]
    each = ", ".join(f"the {n} {costs[n]}" for n in models)
    return text + [
        "In this run, **recomputing took longer than a second backward "
        f"over the retained graph for {which(slower, models)}** "
        f"({each}); what the retained graph costs instead is the memory"
        " in the last column, held between the two passes.",
        "",
    ]


def leak_part(leaks, size):
    n = size["chunks"]
    text = [
        "**The leak loop, one backward per chunk, on the CPU** (times: "
        f"the fastest of {size['leak_runs']} runs):",
        "",
    ]
    text += table(
        [
            f"LSTM, {n} chunks (batch {size['leak_batch']})",
            "RSS after chunk 1",
            f"RSS after chunk {n}",
            f"saved tensors held after chunk {n}",
            "chunk 1 took",
            f"chunk {n} took",
        ],
        [
            [
                variant,
                mb(steps["rss"][0]),
                mb(steps["rss"][-1]),
                mb(steps["saved"][-1], False),
                f"{ms(steps['seconds'][0])} ms",
                f"{ms(steps['seconds'][-1])} ms",
            ]
            for variant, steps in leaks.items()
        ],
    )

    def slowdown(steps):
        first, last = ms(steps["seconds"][0]), ms(steps["seconds"][-1])
        return f"{last / first:.1f}"

    carried = leaks["retain, carried"]
    rss = carried["rss"]
    grew = [b - a for a, b in zip(rss, rss[1:])]
    rose = sum(g > 0 for g in grew)
    if rose == len(grew):
        rose = "after every chunk"
    else:
        rose = f"after {rose} of chunks 2 to {n}"
    detached = {v: s for v, s in leaks.items() if s is not carried}
    spread = max(
        max(s["rss"]) - min(s["rss"]) for s in detached.values()
    )
    slowdowns = " and ".join(
        f"{slowdown(s)} times as long as chunk 1 ({v})"
        for v, s in detached.items()
    )
    alt = "; ".join(
        f"{v}, RSS from {mb(s['rss'][0])} to {mb(s['rss'][-1])} and "
        f"each chunk's time from {ms(s['seconds'][0])} to "
        f"{ms(s['seconds'][-1])} ms"
        for v, s in leaks.items()
    )
    plot = f"![Memory and time per chunk, from the table above: {alt}.]"
    return text + [
        "In this run:",
        "",
        f"- **Retained and carried, RSS rose {rose}** (by "
        f"{mb(min(grew), False)} to {mb(max(grew), False)} a chunk, in"
        " the plot below), "
        f"and chunk {n} took {slowdown(carried)} times as long as "
        "chunk 1.",
        "- **Detached, with or without `retain_graph`, RSS varied by at"
        f" most {mb(spread, False)} over the {n} chunks**, and chunk "
        f"{n} took {slowdowns}.",
        "",
        # The plot for each colour scheme: Material shows an image whose
        # address ends in #only-light in its light scheme only, and one
        # that ends in #only-dark in its dark scheme only.
        f"{plot}(costs/memory.png#only-light)",
        f"{plot}(costs/memory-dark.png#only-dark)",
    ]


def write_table(results, size):
    """results.md: the tables, and what each shows in this run."""
    batches = size["batch"].items()
    # Two sections: the page includes each where it talks about it.
    text = ["<!-- --8<-- [start:measured] -->"]
    text += [f"Measured on: {machine()}.", ""]
    text += memory_part(results["memory"], batches)
    text += time_part(results, batches, size["repeats"])
    text += ["<!-- --8<-- [end:measured] -->"]
    text += ["<!-- --8<-- [start:leak] -->"]
    text += leak_part(results["leak"], size)
    text += ["<!-- --8<-- [end:leak] -->", ""]
    (OUT / "results.md").write_text("\n".join(text))


# The plot, drawn twice from the same figures: for the page's light
# colour scheme, in matplotlib's defaults, and for its dark one
# (Material's "slate"), on that page's background, #1e2129 (its
# --md-default-bg-color, hsl(225deg 15% 14%)), with text and axes in
# that page's text colour, #bfc1c7 (8.9:1 on it). The lines keep
# matplotlib's colours, so each variant has the same colour in both,
# but for its blue: 3.3:1 on the dark background, lightened to #5fa8e8
# (6.3:1); its orange is 6.4:1 there, its green 4.7:1 (3:1 at least).
DARK, TEXT = "#1e2129", "#bfc1c7"
LINES = ["#5fa8e8", "#ff7f0e", "#2ca02c"]
PLOTS = {
    "memory.png": {},
    "memory-dark.png": {
        "figure.facecolor": DARK,
        "axes.facecolor": DARK,
        "text.color": TEXT,
        "axes.labelcolor": TEXT,
        "axes.edgecolor": TEXT,
        "xtick.color": TEXT,
        "ytick.color": TEXT,
        "axes.prop_cycle": cycler(color=LINES),
    },
}


def draw(plt, leaks):
    fig, (mem, sec) = plt.subplots(1, 2, figsize=(9, 3.4), dpi=100)
    for variant, steps in leaks.items():
        chunk = range(1, len(steps["rss"]) + 1)
        mem.plot(chunk, [b / MiB for b in steps["rss"]], label=variant)
        ms = [s * 1e3 for s in steps["seconds"]]
        sec.plot(chunk, ms, label=variant)
    mem.set(xlabel="chunk", ylabel="RSS above the start (MiB)")
    sec.set(xlabel="chunk", ylabel="time of the chunk (ms)")
    mem.set_title("memory", loc="left")
    sec.set_title("time", loc="left")
    mem.legend(frameon=False)
    fig.tight_layout()
    return fig


def write_plot(results):
    import matplotlib

    matplotlib.use("Agg")  # a file, no window
    from matplotlib import pyplot as plt

    for name, style in PLOTS.items():
        with plt.rc_context(style):
            fig = draw(plt, results["leak"])
            # No version stamp: a file changes only when its figures do.
            fig.savefig(OUT / name, metadata={"Software": None})
        plt.close(fig)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        function = globals()[sys.argv[2]]
        print(json.dumps(function(*json.loads(sys.argv[3]))))
        sys.exit()
    write = sys.argv[1:] == ["--write"]
    size = FULL if write else QUICK
    results = measure(size, fresh=write)
    for check, ok in checks(results).items():
        print(f"{check}: {ok}")
    if write:
        write_table(results, size)
        write_plot(results)
        plots = ", ".join(f"docs/costs/{name}" for name in PLOTS)
        print(f"wrote docs/costs/results.md, {plots}")
