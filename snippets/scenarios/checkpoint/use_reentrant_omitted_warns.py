import textwrap
import warnings

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
block = nn.Sequential(nn.Linear(4, 4), nn.Tanh())
x = torch.randn(2, 4, requires_grad=True)

# catch_warnings restores the warning filters when the block ends.
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    checkpoint(block, x)  # use_reentrant not passed
for w in caught:
    print(f"{w.category.__name__}:")
    print(textwrap.fill(str(w.message), 72))

# Which variant ran? The reentrant one is a single custom Function.
for kwargs in [{}, {"use_reentrant": True}, {"use_reentrant": False}]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = checkpoint(block, x, **kwargs)
    name = type(out.grad_fn).__name__
    print(f"checkpoint(block, x, **{kwargs}): {name}")
