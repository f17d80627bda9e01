"""A norse LIFCell run chunk by chunk, its state handed on to the next
chunk after each chunk's backward.

Source: https://github.com/norse/norse/issues/130
The user wanted to keep a spiking cell's state (z, v, i) from one
chunk of an input stream to the next, with a backward per chunk and
one optimizer step for the stream.
"""

from typing import NamedTuple

import torch
from torch import nn

torch.manual_seed(0)
DT, TAU_SYN_INV, TAU_MEM_INV = 1e-3, 200.0, 100.0
V_TH, ALPHA = 1.0, 100.0


class SuperSpike(torch.autograd.Function):
    """norse's threshold(method="super"): a Heaviside forward."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return (x > 0).float()

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / (ALPHA * x.abs() + 1.0) ** 2


class LIFState(NamedTuple):
    z: torch.Tensor
    v: torch.Tensor
    i: torch.Tensor


class LIFCell(nn.Module):
    """norse's LIFCell and lif_step, reduced (v_leak = v_reset = 0)."""

    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.input_weights = nn.Parameter(
            torch.randn(hidden_size, input_size) / input_size**0.5
        )
        self.recurrent_weights = nn.Parameter(
            torch.randn(hidden_size, hidden_size) / hidden_size**0.5
        )

    def forward(self, x, state=None):
        if state is None:
            zeros = torch.zeros(x.shape[0], self.hidden_size)
            state = LIFState(zeros, zeros, zeros)
        v = state.v + DT * TAU_MEM_INV * (-state.v + state.i)
        i = state.i - DT * TAU_SYN_INV * state.i
        z = SuperSpike.apply(v - V_TH)
        v = (1 - z) * v
        i = i + x @ self.input_weights.T
        i = i + state.z @ self.recurrent_weights.T
        return z, LIFState(z, v, i)


model = LIFCell(12, 4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
stream = torch.rand(4, 10, 8, 12) * 20  # chunks of 10 time steps
optimizer.zero_grad()
state = None
for chunk, steps in enumerate(stream):
    outs = []
    for x in steps:
        out, state = model(x, state)
        outs.append(out)
    loss = (torch.stack(outs).mean() - 0.2) ** 2
    loss.backward()  # one backward per chunk
    print(f"chunk {chunk}: loss {loss.item():.4f}")
optimizer.step()  # one step for the whole stream
