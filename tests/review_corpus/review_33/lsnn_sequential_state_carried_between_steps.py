# source: https://github.com/norse/norse/commit/3756b421adb12ddeb21bfc5a7cac5f4c39cf1779
# (reduced from the training loop of that commit's test, "Fixed broken backprop with
#  sequential state (#164)", with norse's LSNN step written out in plain torch)
#
# What it does: a stack of LSNN (adaptive leaky integrate-and-fire) spiking layers, run
# one time chunk at a time over one long input stream; each layer's state (spikes z,
# membrane voltage v, synaptic current i, adaptive threshold b) is handed from one chunk
# to the next, as norse's SequentialState does. After every chunk the loss is
# back-propagated and Adam takes a step (online / truncated training).
# What the author intended: the neurons keep their state across the chunks of the
# stream (the membrane potential must carry on, it is one continuous input), but each
# optimizer step should only back-propagate through the current chunk. As written, the
# state returned by chunk k still holds chunk k's graph, which chunk k's backward()
# freed, so the backward of chunk k+1 raises.
from typing import NamedTuple

import torch
from torch import nn

torch.manual_seed(0)


class SuperSpike(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.save_for_backward(x)
        ctx.alpha = alpha
        return (x > 0).to(x.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output / (ctx.alpha * x.abs() + 1.0).pow(2), None


class LSNNParameters(NamedTuple):
    tau_syn_inv: float = 1.0 / 5e-3
    tau_mem_inv: float = 1.0 / 1e-2
    tau_adapt_inv: float = 1.0 / 700
    v_leak: float = 0.0
    v_th: float = 1.0
    v_reset: float = 0.0
    beta: float = 1.8
    alpha: float = 100.0


class LSNNState(NamedTuple):
    z: torch.Tensor
    v: torch.Tensor
    i: torch.Tensor
    b: torch.Tensor


DEFAULT_PARAMETERS = LSNNParameters()


def lsnn_step(
    input_tensor, state, input_weights, recurrent_weights, p=DEFAULT_PARAMETERS, dt=0.001
):
    # current jumps from input and recurrent spikes (these only depend on the old state)
    i_decayed = state.i - dt * p.tau_syn_inv * state.i
    i_new = (
        i_decayed
        + nn.functional.linear(input_tensor, input_weights)
        + nn.functional.linear(state.z, recurrent_weights)
    )
    # voltage and threshold decay, spike, reset, threshold adaptation
    v_decayed = state.v + dt * p.tau_mem_inv * ((p.v_leak - state.v) + state.i)
    b_decayed = state.b + dt * p.tau_adapt_inv * (p.v_th - state.b)
    z_new = SuperSpike.apply(v_decayed - b_decayed, p.alpha)
    v_new = (1 - z_new) * v_decayed + z_new * p.v_reset
    b_new = b_decayed + z_new * p.tau_adapt_inv * p.beta
    return z_new, LSNNState(z_new, v_new, i_new, b_new)


class LSNNLayer(nn.Module):
    """Runs an LSNN cell over the time dimension of (T, batch, features)."""

    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.input_weights = nn.Parameter(
            torch.randn(hidden_size, input_size) * (2 / hidden_size) ** 0.5
        )
        self.recurrent_weights = nn.Parameter(
            torch.randn(hidden_size, hidden_size) * (2 / hidden_size) ** 0.5
        )

    def forward(self, x, state=None):
        if state is None:
            zeros = torch.zeros(x.shape[1], self.hidden_size)
            state = LSNNState(zeros, zeros.clone(), zeros.clone(), zeros.clone())
        outputs = []
        for xt in x:
            z, state = lsnn_step(xt, state, self.input_weights, self.recurrent_weights)
            outputs.append(z)
        return torch.stack(outputs), state


class SequentialState(nn.Module):
    """Like norse.torch.SequentialState: threads one state per stateful layer."""

    def __init__(self, *layers):
        super().__init__()
        self.layers = nn.ModuleList(layers)

    def forward(self, x, state=None):
        state = [None] * len(self.layers) if state is None else state
        new_state = []
        for layer, s in zip(self.layers, state):
            if isinstance(layer, LSNNLayer):
                x, s = layer(x, s)
            else:
                x = layer(x)
            new_state.append(s)
        return x, new_state


class Readout(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.linear = nn.Linear(n_in, n_out)

    def forward(self, x):  # spikes (T, batch, features) -> rate readout
        return self.linear(x.mean(0))


model = SequentialState(
    LSNNLayer(1, 8),
    LSNNLayer(8, 8),
    LSNNLayer(8, 4),
    Readout(4, 1),
)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_func = nn.MSELoss()

# one continuous input stream for a batch of 2, cut into 6 chunks of 10 time steps
stream = (torch.rand(60, 2, 1) < 0.3).float() * 5.0
target = torch.ones(2, 1)
chunks = stream.split(10)

for epoch in range(2):
    state = None  # every epoch replays the stream from its start
    for k, x in enumerate(chunks):
        out, state = model(x, state)
        loss = loss_func(out, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"epoch {epoch} chunk {k} loss {loss.item():.4f}")
