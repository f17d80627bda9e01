import functools

import torch
from torch import nn
from torch.nn.utils import parametrize

torch.manual_seed(0)
x = torch.randn(5, 3)


def train_then_recompute(name, get, compute, params):
    """One step on get(), then get() again, as the next step would."""
    opt = torch.optim.SGD(params, lr=0.1)
    first = get()
    ((first - 1) ** 2).sum().backward()
    opt.step()  # the parameters change...
    again = get()  # ...and the "recomputed" value?
    with torch.no_grad():
        fresh = compute()
    try:
        ((again - 1) ** 2).sum().backward()
        outcome = "runs"
    except RuntimeError as e:
        outcome = "raises " + str(e).split(" (")[0]
    print(
        f"{name}:\n    same tensor as at step 0: {again is first}, "
        f"equal to a fresh value: {torch.equal(again, fresh)}\n"
        f"    backward {outcome}"
    )


# 1. A memo: functools.cache keys on the tensor object, x.
encoder = nn.Sequential(nn.Linear(3, 4), nn.ReLU())
embed = functools.cache(lambda inp: encoder(inp))
train_then_recompute(
    "functools.cache",
    lambda: embed(x),
    lambda: encoder(x),
    list(encoder.parameters()),
)


# 2. A lazy attribute: computed on first access, then stored.
class Direction(nn.Module):
    def __init__(self):
        super().__init__()
        self.v = nn.Parameter(torch.randn(4))

    @functools.cached_property
    def unit(self):
        return self.v / self.v.norm()


d = Direction()
train_then_recompute(
    "cached_property",
    lambda: d.unit,
    lambda: d.v / d.v.norm(),
    [d.v],
)


# 3. parametrize.cached() left open across steps.
class Unit(nn.Module):
    def forward(self, w):
        return w / w.norm()


layer = nn.Linear(4, 2)
parametrize.register_parametrization(layer, "weight", Unit())
orig = layer.parametrizations.weight.original
with parametrize.cached():
    train_then_recompute(
        "parametrize.cached()",
        lambda: layer.weight,
        lambda: orig / orig.norm(),
        [orig],
    )
