"""`make bench`: what watching a training loop costs, the diagnose command's overhead.

Each model trains for a number of steps plainly and under `watch()` (what
`python freed_graph_report.py script.py` does), alternating, in one process with one thread;
the figure is the median over the repeats. The rows of other torch versions already in the
results file are kept, so running this in each torch's venv fills one table.
Figures, not pass/fail: the goal is at most 2x on a realistic model.
"""

import argparse
import contextlib
import platform
import re
import runpy
import statistics
import tempfile
import time
from pathlib import Path

import sitekit
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

ROOT = Path(__file__).resolve().parents[1]
# The command as a reader downloads it: the one file assembled from its parts.
COMMAND = runpy.run_path(str(sitekit.write_command(Path(tempfile.mkdtemp()))))
watch = COMMAND["watch"]

OUT = ROOT / "docs" / "diagnose" / "overhead.md"
ROW = re.compile(r"^\| (\d+\.\d+\.\d+) \| (.+?) \|")  # a version row, not a step row
CPUS = "Processors: "  # the line under the table: each version's rows, where measured
CPU = re.compile(r"(\d+\.\d+\.\d+) on (.+?)(?:; | \(timings)")


def convnet():
    """A small residual CNN on 32x32 images, batch 16."""

    def block(c):
        return nn.Sequential(
            nn.Conv2d(c, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU(),
            nn.Conv2d(c, c, 3, padding=1), nn.BatchNorm2d(c),
        )  # fmt: skip

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Conv2d(3, 32, 3, padding=1)
            self.blocks = nn.ModuleList(block(32) for _ in range(4))
            self.head = nn.Linear(32, 10)

        def forward(self, x):
            x = self.stem(x)
            for b in self.blocks:
                x = torch.relu(x + b(x))
            return self.head(x.mean((2, 3)))

    return Net(), torch.randn(16, 3, 32, 32), torch.randint(0, 10, (16,))


def transformer():
    """A 2-layer Transformer encoder, d=128, 4 heads, 32 tokens, batch 16."""
    layer = nn.TransformerEncoderLayer(128, 4, 256, dropout=0.0, batch_first=True)
    model = nn.Sequential(nn.TransformerEncoder(layer, 2), nn.Flatten(), nn.Linear(32 * 128, 10))
    return model, torch.randn(16, 32, 128), torch.randint(0, 10, (16,))


def checkpointed_transformer():
    """The same Transformer, each layer under a non-reentrant checkpoint: during the first
    steps the checks take the sum, sum of magnitudes and norm of every tensor it saves."""
    model, x, y = transformer()

    class Checkpointed(nn.Module):
        def __init__(self, layers):
            super().__init__()
            self.layers = layers

        def forward(self, x):
            for layer in self.layers:
                x = checkpoint(layer, x, use_reentrant=False)
            return x

    return nn.Sequential(Checkpointed(model[0].layers), *model[1:]), x, y


def mlp():
    """A 3-layer MLP on 64 features, batch 32: tiny ops, the worst case for per-node costs."""
    model = nn.Sequential(
        nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10)
    )
    return model, torch.randn(32, 64), torch.randint(0, 10, (32,))


MODELS = {
    "convnet": convnet,
    "transformer": transformer,
    "transformer, checkpointed": checkpointed_transformer,
    "mlp": mlp,
}
# A loop that keeps its graph at every step, as the error message suggests: the checks then also
# watch your code's .grad reads until the step.
RETAINING = {"mlp, retain_graph=True": "mlp"}
FOLLOWED = COMMAND["CUT_STEPS"]  # the steps during which cuts are followed


def seconds_per_step(model, x, y, steps, context, retain=False) -> float:
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    start = time.perf_counter()
    with context():
        for _ in range(steps):
            opt.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward(retain_graph=retain)
            opt.step()
    return (time.perf_counter() - start) / steps


def step_times(model, x, y, steps, context) -> list[float]:
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    times = []
    with context():
        for _ in range(steps):
            start = time.perf_counter()
            opt.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
            times.append(time.perf_counter() - start)
    return times


def first_steps(name, steps, repeats) -> str:
    """The checks follow cut values during the first FOLLOWED optimizer steps of a watched run:
    those steps, and the ones after, each against the same steps of a plain run."""
    torch.manual_seed(0)
    model, x, y = MODELS[name]()
    step_times(model, x, y, 3, contextlib.nullcontext)  # warm up
    runs = {"plain": [], "watched": []}
    for _ in range(repeats):
        runs["plain"].append(step_times(model, x, y, steps, contextlib.nullcontext))
        runs["watched"].append(step_times(model, x, y, steps, watch))
    medians = {
        kind: [statistics.median(r[i] for r in got) for i in range(steps)]
        for kind, got in runs.items()
    }
    cells = []
    for i in range(FOLLOWED):
        plain, watched = medians["plain"][i], medians["watched"][i]
        cells.append(f"| {i + 1} | {plain * 1e3:.2f} ms | {watched * 1e3:.2f} ms |")
    after = {k: statistics.median(v[FOLLOWED:]) for k, v in medians.items()}
    cells.append(
        f"| {FOLLOWED + 1} to {steps} (median) | {after['plain'] * 1e3:.2f} ms | "
        f"{after['watched'] * 1e3:.2f} ms |"
    )
    return "\n".join(cells)


def kept_target_times(steps, context) -> list[float]:
    """The MLP trained towards a target another MLP made once, with its graph, backpropagated
    again at every step (`retain_graph=True`): the wrong fix `retained-graph-trains-nothing`
    reports, each step of which the checks look at again."""
    torch.manual_seed(0)
    (model, x, _), (teacher, _, _) = mlp(), mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    times = []
    with context():
        target = teacher(x)
        for _ in range(steps):
            start = time.perf_counter()
            opt.zero_grad()
            (model(x) - target).pow(2).mean().backward(retain_graph=True)
            opt.step()
            times.append(time.perf_counter() - start)
    return times


def kept_target(steps, repeats) -> str:
    """Its first and last 20 steps, plain and watched: whether a long run grows costlier."""
    kept_target_times(3, contextlib.nullcontext)  # warm up
    runs = {"plain": [], "watched": []}
    for _ in range(repeats):
        runs["plain"].append(kept_target_times(steps, contextlib.nullcontext))
        runs["watched"].append(kept_target_times(steps, watch))
    cells = []
    for start, stop in ((0, 20), (steps - 20, steps)):
        plain, watched = (
            statistics.median(statistics.median(r[start:stop]) for r in runs[kind])
            for kind in ("plain", "watched")
        )
        cells.append(
            f"| {start + 1} to {stop} | {plain * 1e3:.2f} ms | {watched * 1e3:.2f} ms | "
            f"{watched / plain:.2f}x |"
        )
    return "\n".join(cells)


def measure(name, steps, repeats) -> tuple[float, float]:
    torch.manual_seed(0)
    retain = name in RETAINING
    model, x, y = MODELS[RETAINING.get(name, name)]()
    seconds_per_step(model, x, y, 3, contextlib.nullcontext)  # warm up
    plain, watched = [], []
    for _ in range(repeats):
        plain.append(seconds_per_step(model, x, y, steps, contextlib.nullcontext, retain))
        watched.append(seconds_per_step(model, x, y, steps, watch, retain))
    return statistics.median(plain), statistics.median(watched)


def cpu() -> str:
    """The processor's model name: timings from different machines do not compare."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def mechanism() -> str:
    if hasattr(torch.autograd.graph, "node_creation_hook"):
        return "`node_creation_hook`"
    return "anomaly mode"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(1)
    version = torch.__version__.split("+")[0]
    rows, cpus = {}, {}
    if OUT.exists():
        for line in OUT.read_text().splitlines():
            m = ROW.match(line)
            if m and m.group(1) != version:
                rows[(m.group(1), m.group(2).split(" |")[0])] = line
                # Rows from before processors were noted: an earlier machine.
                cpus.setdefault(m.group(1), "an earlier machine (not recorded)")
            if line.startswith(CPUS):
                cpus.update(CPU.findall(line))
    cpus[version] = cpu()
    for name in [*MODELS, *RETAINING]:
        plain, watched = measure(name, args.steps, args.repeats)
        ratio = watched / plain
        print(f"torch {version}, {name}: {plain * 1e3:.1f} ms, watched x{ratio:.2f}")
        rows[(version, name)] = (
            f"| {version} | {name} | {mechanism()} | {plain * 1e3:.1f} ms | "
            f"{watched * 1e3:.1f} ms | {ratio:.2f}x |"
        )
    table = "\n".join(rows[k] for k in sorted(rows))
    first = first_steps("mlp", args.steps, args.repeats)
    long = 10 * args.steps
    kept = kept_target(long, max(3, args.repeats // 5))
    OUT.write_text(
        "Measured by the site's benchmark script on a 2-core machine with no GPU, one thread, "
        f"{args.steps} training steps (forward, backward, SGD step) per run, the median of "
        f"{args.repeats} runs that alternate a plain run and a watched one:\n\n"
        "| torch | model | records lines with | plain, per step | watched, per step | ratio |\n"
        "|---|---|---|---|---|---|\n"
        + table
        + "\n\n"
        + CPUS
        + "; ".join(f"{v} on {name}" for v, name in sorted(cpus.items()))
        + " (timings from two processors do not compare).\n\n"
        "The models: a small residual CNN on 32x32 images (batch 16), a 2-layer Transformer "
        "encoder (d=128, 32 tokens, batch 16), the same encoder with each layer under "
        "`checkpoint(..., use_reentrant=False)`, and a 3-layer MLP on 64 features (batch 32), "
        "whose tiny operations make the per-node cost show most. `mlp, retain_graph=True` is the "
        "MLP with `backward(retain_graph=True)` at every step: after such a backward the checks "
        "also watch your code's `.grad` reads, until the next backward or step.\n\n"
        f"The checks follow values cut from their graph during the first {FOLLOWED} optimizer "
        f"steps only: the MLP's steps, one by one, on torch {version} and the {cpu()} (median of "
        f"{args.repeats} runs of each kind):\n\n"
        "| step | plain | watched |\n|---|---|---|\n" + first + "\n\n"
        f"A run that keeps a graph and backpropagates it again at every step, the wrong fix "
        "`retained-graph-trains-nothing` reports (the MLP trained towards a target a second MLP "
        f"made once, with its graph), over {long} steps: the first 20 and the last 20 (median "
        f"of {max(3, args.repeats // 5)} runs of each kind):\n\n"
        "| steps | plain | watched | ratio |\n|---|---|---|---|\n" + kept + "\n"
    )
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
