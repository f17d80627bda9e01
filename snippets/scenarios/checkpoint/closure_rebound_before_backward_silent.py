import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
x = torch.randn(8, 16)
linears = nn.ModuleList(nn.Linear(16, 16) for _ in range(3))
gains = nn.Parameter(torch.rand(3, 16) + 0.5)  # one row per layer


def layer(h, linear, gain):
    return torch.tanh(linear(h) * gain)


def loss_of(mode):
    h = x
    for i, linear in enumerate(linears):
        gain = gains[i]  # the loop rebinds `gain` and `linear`

        def closure(h):
            # reads `linear` and `gain` when it runs, not when defined
            return layer(h, linear, gain)  # noqa: B023 (the trap)

        if mode == "off":
            h = closure(h)
        elif mode == "closure":
            h = checkpoint(closure, h, use_reentrant=False)
        else:  # everything it reads passed in
            h = checkpoint(layer, h, linear, gain, use_reentrant=False)
    return h.pow(2).mean()


params = [gains, *linears.parameters()]
loss_off = loss_of("off")
want = torch.autograd.grad(loss_off, params)  # checkpointing off
for mode in ("closure", "arguments"):
    loss = loss_of(mode)
    got = torch.autograd.grad(loss, params)  # no error either way
    same = all(map(torch.allclose, got, want))
    equal = torch.equal(loss, loss_off)
    print(
        f"{mode}: loss = checkpointing off: {equal}, "
        f"gradients = checkpointing off: {same}"
    )
