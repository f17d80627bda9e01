import copy

import torch
from torch import nn
from torch.nn.utils.parametrizations import spectral_norm


def before_forward(model=None):
    """Take just before the forward that makes a value: the RNG state,
    for dropout's masks, and the model's buffers, which a forward may
    advance (BatchNorm's statistics, spectral norm's u and v)."""
    buffers = [] if model is None else list(model.buffers())
    return torch.get_rng_state(), [b.clone() for b in buffers]


def is_fresh(value, recompute, before=None, model=None):
    """Equal to recompute() now? Call it before optimizer.step().
    before: before_forward(model) from the forward that made value; the
    recompute starts from that RNG state and those buffers. The RNG
    and the buffers are left as they were."""
    buffers = [] if model is None else list(model.buffers())
    kept = [b.clone() for b in buffers]
    with torch.no_grad(), torch.random.fork_rng(devices=[]):
        if before is not None:
            torch.set_rng_state(before[0])
            for b, then in zip(buffers, before[1]):
                b.copy_(then)
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


# Spectral norm (a power iteration per forward), BatchNorm, Dropout.
torch.manual_seed(0)
x, target = torch.randn(16, 32), torch.randn(16, 1)
net = nn.Sequential(
    # 32 by 32: its u and v still move at each forward
    spectral_norm(nn.Linear(32, 32)),
    nn.BatchNorm1d(32),
    nn.ReLU(),
    nn.Dropout(0.5),
    nn.Linear(32, 1),
)


def train(check=None, lr=0.1):
    model = copy.deepcopy(net)
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    torch.manual_seed(1)
    last = None  # last step's output and its state: before opt.step()
    for step in range(3):
        opt.zero_grad()
        before = before_forward(model)
        out = model(x)
        (out - target).pow(2).mean().backward()
        buffers = [b.clone() for b in model.buffers()]
        if check == "naive":
            fresh = is_fresh_naive(out, lambda: model(x))
        elif check == "kept":
            fresh = is_fresh(out, lambda: model(x), before, model)
            if last is not None:
                was, then = last
                stale = is_fresh(was, lambda: model(x), then, model)
                fresh = f"{fresh} (last step's: {stale})"
        elif check == "buffers at the check":
            now = before[0], buffers  # the RNG replayed, not u and v
            fresh = is_fresh(out, lambda: model(x), now, model)
        if check:
            kept = same(buffers, model.buffers())
            tracked = model[1].num_batches_tracked.item()
            print(
                f"  step {step}: fresh {fresh}; buffers kept {kept}, "
                f"tracked {tracked}"
            )
        opt.step()
        last = out, before
    return list(model.state_dict().values())


unchecked = train()
print("recompute and compare:")
naive = train("naive")
print(f"  weights and buffers as unchecked: {same(naive, unchecked)}")
print("RNG and buffers from before the forward, then restored:")
kept = train("kept")
print(f"  weights and buffers as unchecked: {same(kept, unchecked)}")
print("the same with lr=0 (nothing changes between the steps):")
train("kept", lr=0.0)
print("buffers taken at the check, after the forward advanced them:")
train("buffers at the check", lr=0.0)
