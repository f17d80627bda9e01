import torch
from torch import nn


# The three checks, is_fresh with its helper: copy them.
def count_nodes(t):
    """Graph nodes behind t. Equal at the steps whose graphs have one
    shape (same input length, same route), or a leak."""
    seen, todo = set(), [t.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.add(node)
            todo.extend(f for f, _ in node.next_functions)
    return len(seen)


def untrained(model):
    """Parameters the last backward gave no gradient, or zero."""
    return [
        name
        for name, p in model.named_parameters()
        if p.grad is None or not p.grad.any()
    ]


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


# A model with a derived tensor (scale) and a carried one (center).
torch.manual_seed(0)
x = torch.randn(8, 3)
init = nn.Linear(3, 4).state_dict()


def run(variant):
    print(variant + ":")
    model = nn.Module()
    model.encoder = nn.Linear(3, 4)
    model.encoder.load_state_dict(init)
    model.log_s = nn.Parameter(torch.zeros(4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scale, center = model.log_s.exp(), torch.zeros(4)  # made once
    for step in range(3):
        opt.zero_grad()
        feats = model.encoder(x)
        if variant == "leaking":  # carried graph, retained
            center = 0.9 * center + 0.1 * feats.mean(0)
        else:
            scale = model.log_s.exp()  # recomputed each step
            if variant == "detached too much":
                feats = feats.detach()
            center = 0.9 * center.detach() + 0.1 * feats.mean(0)
        loss = ((feats - center) * scale).pow(2).mean()
        loss.backward(retain_graph=variant == "leaking")
        fresh = is_fresh(scale, lambda: model.log_s.exp())
        opt.step()
        names = ", ".join(untrained(model)) or "none"
        print(
            f"  step {step}: {count_nodes(loss)} nodes, "
            f"fresh: {fresh}, untrained: {names}"
        )


for variant in ["leaking", "detached too much", "fixed"]:
    run(variant)
