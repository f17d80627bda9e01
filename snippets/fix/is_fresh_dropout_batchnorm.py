import copy

import torch
from torch import nn


def is_fresh(value, recompute, rng=None, model=None):
    """Equal to recompute() now? Call it before optimizer.step().
    rng: torch.get_rng_state() from just before the forward that made
    value, so dropout draws the same masks again. model: its buffers
    (BatchNorm's running statistics) are put back after the extra
    forward. The RNG is left as it was."""
    buffers = [] if model is None else list(model.buffers())
    kept = [b.clone() for b in buffers]
    with torch.no_grad(), torch.random.fork_rng(devices=[]):
        if rng is not None:
            torch.set_rng_state(rng)
        now = recompute()
        for b, k in zip(buffers, kept):
            b.copy_(k)
    return torch.equal(value, now)


def is_fresh_naive(value, recompute):
    """Recompute and compare, nothing kept."""
    with torch.no_grad():
        return torch.equal(value, recompute())


def same(xs, ys):
    return all(torch.equal(a, b) for a, b in zip(xs, ys))


# A model with both: BatchNorm (running statistics) and Dropout.
torch.manual_seed(0)
x, target = torch.randn(16, 3), torch.randn(16, 1)
net = nn.Sequential(
    nn.Linear(3, 8),
    nn.BatchNorm1d(8),
    nn.ReLU(),
    nn.Dropout(0.5),
    nn.Linear(8, 1),
)


def train(check=None):
    model = copy.deepcopy(net)
    bn = model[1]
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    torch.manual_seed(1)
    last = None  # last step's output: made before opt.step()
    for step in range(3):
        opt.zero_grad()
        rng = torch.get_rng_state()  # before the forward
        out = model(x)
        (out - target).pow(2).mean().backward()
        stats = [bn.running_mean.clone(), bn.running_var.clone()]
        if check == "naive":
            fresh = is_fresh_naive(out, lambda: model(x))
        elif check == "kept":
            fresh = is_fresh(out, lambda: model(x), rng, model)
            if last is not None:
                stale = is_fresh(last, lambda: model(x), rng, model)
                fresh = f"{fresh} (last step's: {stale})"
        if check:
            kept = same(stats, [bn.running_mean, bn.running_var])
            print(
                f"  step {step}: fresh {fresh}; running stats kept "
                f"{kept}, tracked {bn.num_batches_tracked.item()}"
            )
        opt.step()
        last = out
    return list(model.state_dict().values())


unchecked = train()
print("recompute and compare:")
naive = train("naive")
print(f"  weights and buffers as unchecked: {same(naive, unchecked)}")
print("RNG replayed and restored, buffers kept:")
kept = train("kept")
print(f"  weights and buffers as unchecked: {same(kept, unchecked)}")
