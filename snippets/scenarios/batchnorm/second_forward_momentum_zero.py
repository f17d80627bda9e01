import contextlib
import copy

import torch
from torch import nn
from torch.nn.modules.batchnorm import _BatchNorm

torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(3, 8), nn.BatchNorm1d(8))
head_a, head_b = nn.Linear(8, 1), nn.Linear(8, 1)
x, y = torch.randn(16, 3), torch.randn(16, 1)
reference = copy.deepcopy(trunk)
reference(x)  # the running statistics after one training forward


@contextlib.contextmanager
def running_stats_frozen(model):
    # running = (1 - 0) * running + 0 * batch: left as it is.
    norms = [m for m in model.modules() if isinstance(m, _BatchNorm)]
    saved = [m.momentum for m in norms]
    for m in norms:
        m.momentum = 0.0
    try:
        yield
    finally:
        for m, momentum in zip(norms, saved):
            m.momentum = momentum


loss_a = nn.functional.mse_loss(head_a(trunk(x)), y)
loss_a.backward()
with running_stats_frozen(trunk):  # still training mode: batch stats
    loss_b = head_b(trunk(x)).abs().mean()
loss_b.backward()

bn, ref = trunk[1], reference[1]
for name in ["running_mean", "running_var"]:
    same = getattr(bn, name).equal(getattr(ref, name))
    print(f"{name} as after one forward: {same}")
print(f"num_batches_tracked = {bn.num_batches_tracked.item()}")
print(f"momentum restored: {bn.momentum}")
