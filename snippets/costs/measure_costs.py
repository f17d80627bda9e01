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
import statistics
import subprocess
import sys
import time
from pathlib import Path

import psutil
import torch
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
    return dict(
        saved=forward,
        held_saved=saved.held(),
        peak=peak_rss() - start,
        held=rss() - start,
    )


def cuda_memory(name, batch, retain):
    """The same on the GPU, from the CUDA allocator's counters."""
    torch.manual_seed(0)
    model, x, y = MODELS[name](batch)
    model, x, y = model.cuda(), x.cuda(), y.cuda()
    loss_of(model, x[:2], y[:2]).backward()
    model.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    start = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    loss = loss_of(model, x, y)
    loss.backward(retain_graph=retain)
    torch.cuda.synchronize()
    return dict(
        peak=torch.cuda.max_memory_allocated() - start,
        held=torch.cuda.memory_allocated() - start,
    )


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
    # keep the fastest run of each, and compare the two within each
    # round, where both ran under the same conditions.
    runs, grads = {retain: [], recompute: []}, {}
    for _ in range(repeats + 1):  # the first round warms up
        for way in runs:
            model.zero_grad(set_to_none=True)
            start = time.perf_counter()
            way()
            runs[way].append(time.perf_counter() - start)
            grads[way] = [p.grad for p in model.parameters()]
    times = {way.__name__: min(t[1:]) for way, t in runs.items()}
    pairs = zip(runs[recompute][1:], runs[retain][1:])
    times["ratio"] = statistics.median(a / b for a, b in pairs)
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
    results = {"memory": {}, "cuda": {}, "time": {}, "leak": {}}
    for name, batch in size["batch"].items():
        for retain in (False, True):
            key = name, retain
            results["memory"][key] = run(memory, name, batch, retain)
            if torch.cuda.is_available():
                results["cuda"][key] = cuda_memory(name, batch, retain)
        results["time"][name] = two_passes(name, batch, size["repeats"])
    for variant in LEAKS:
        args = variant, size["leak_batch"], size["chunks"]
        runs = [run(leak, *args) for _ in range(size["leak_runs"])]
        # Memory is the same every run; time: each chunk's fastest.
        fastest = [
            min(chunk) for chunk in zip(*(r["seconds"] for r in runs))
        ]
        results["leak"][variant] = dict(runs[0], seconds=fastest)
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
    gpu = "no CUDA device"
    if torch.cuda.is_available():
        gpu = "CUDA: " + torch.cuda.get_device_name()
    return (
        f"{cpu}, {os.cpu_count()} cores ({torch.get_num_threads()} "
        f"torch threads), {ram:.0f} GiB RAM, {gpu}; "
        f"{platform.system()}, Python {platform.python_version()}, "
        f"torch {torch.__version__}; "
        f"{datetime.date.today().isoformat()}"
    )


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |"]
    lines.append("|---" + "|--:" * (len(header) - 1) + "|")
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines + [""]


def mb(n, sign="+"):
    return f"{sign}{n / MiB:.1f} MiB"


def write_table(results, size):
    batches = size["batch"].items()
    ways = ["`backward()`", "`retain_graph=True`"]
    text = [f"Measured on: {machine()}.", ""]
    text += ["**One forward and backward pass:**", ""]
    mem = results["memory"]
    text += table(
        ["model (batch)", "saved by the forward (counted)"]
        + [f"peak RSS, {w}" for w in ways]
        + [f"RSS held after, {w}" for w in ways],
        [
            [f"{name} ({batch})", mb(mem[name, True]["saved"], "")]
            + [mb(mem[name, r]["peak"]) for r in (False, True)]
            + [mb(mem[name, r]["held"]) for r in (False, True)]
            for name, batch in batches
        ],
    )
    cuda = results["cuda"]
    if cuda:
        device = torch.cuda.get_device_name()
        text += [f"On the GPU ({device}), `max_memory_allocated`:", ""]
        text += table(
            ["model (batch)"]
            + [f"peak, {w}" for w in ways]
            + [f"held after, {w}" for w in ways],
            [
                [f"{name} ({batch})"]
                + [mb(cuda[name, r]["peak"]) for r in (False, True)]
                + [mb(cuda[name, r]["held"]) for r in (False, True)]
                for name, batch in batches
            ],
        )
    else:
        text += ["No CUDA device on this machine: no GPU figures.", ""]
    rows = []
    for name, batch in batches:
        t = results["time"][name]
        rows.append(
            [
                f"{name} ({batch})",
                f"{t['retain'] * 1e3:.0f} ms",
                f"{t['recompute'] * 1e3:.0f} ms",
                f"{t['ratio'] - 1:+.0%}",
                mb(mem[name, True]["saved"], ""),
            ]
        )
    text += [
        "**Two backward passes** (the fastest of "
        f"{size['repeats']} runs each; what recomputing costs: the"
        " median over back-to-back pairs of runs):",
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
        rows,
    )
    n = size["chunks"]
    text += [
        "**The leak loop, one backward per chunk** (times: the fastest"
        f" of {size['leak_runs']} runs):",
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
                mb(steps["saved"][-1], ""),
                f"{steps['seconds'][0] * 1e3:.0f} ms",
                f"{steps['seconds'][-1] * 1e3:.0f} ms",
            ]
            for variant, steps in results["leak"].items()
        ],
    )
    (OUT / "results.md").write_text("\n".join(text))


def write_plot(results):
    import matplotlib

    matplotlib.use("Agg")  # a file, no window
    from matplotlib import pyplot as plt

    fig, (mem, sec) = plt.subplots(1, 2, figsize=(9, 3.4), dpi=100)
    for variant, steps in results["leak"].items():
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
    # No version stamp: the file changes only when the figures do.
    fig.savefig(OUT / "memory.png", metadata={"Software": None})


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
        print("wrote docs/costs/results.md and docs/costs/memory.png")
