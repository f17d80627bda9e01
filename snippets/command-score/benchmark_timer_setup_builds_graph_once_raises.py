"""Thunder's FX graph report times a backward with
torch.utils.benchmark: the forward in the Timer's setup, the
backward in its statement.

Source: https://github.com/Lightning-AI/lightning-thunder/pull/1793
The maintainers wanted run_benchmark to time the backward pass of a
captured graph alone, repeated as benchmark.Timer repeats a statement.
"""

import torch
import torch.utils.benchmark as benchmark
from torch import nn

torch.manual_seed(0)


def run_benchmark(fn, inputs, number=5):
    """The backward timing of FXGraphReport.run_benchmark, reduced."""
    setup = "out = fn(*inputs); grad = torch.ones_like(out)"
    stmt = "torch.autograd.backward(out, grad)"
    timer = benchmark.Timer(
        stmt=stmt,
        setup=setup,
        globals={"fn": fn, "inputs": inputs, "torch": torch},
    )
    return timer.timeit(number=number)


graph = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 4))
x = torch.randn(32, 8, requires_grad=True)
measurement = run_benchmark(graph, [x])
print(f"backward timed over {measurement.number_per_run} runs")
