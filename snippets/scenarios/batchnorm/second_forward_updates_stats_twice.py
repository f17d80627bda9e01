import copy

import torch
from torch import nn

torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(3, 8), nn.BatchNorm1d(8))
head_a, head_b = nn.Linear(8, 1), nn.Linear(8, 1)
x, y = torch.randn(16, 3), torch.randn(16, 1)
twice = copy.deepcopy(trunk)


def losses(features):
    loss_a = nn.functional.mse_loss(head_a(features), y)
    return loss_a, head_b(features).abs().mean()


# Reference: one forward, one backward of the sum.
loss_a, loss_b = losses(trunk(x))
(loss_a + loss_b).backward()

# The tempting fix: a fresh forward pass for each loss.
loss_a, _ = losses(twice(x))
loss_a.backward()
_, loss_b = losses(twice(x))  # no error now...
loss_b.backward()

# Equal up to float32 rounding: the two backward calls add the same
# terms in another order.
same = torch.allclose(
    twice[0].weight.grad, trunk[0].weight.grad, atol=1e-6
)
print(f"same gradients as one backward: {same}")
for name, model in [("one forward ", trunk), ("two forwards", twice)]:
    bn = model[1]
    mean = ", ".join(f"{v:.4f}" for v in bn.running_mean[:3])
    print(
        f"{name}: num_batches_tracked = {bn.num_batches_tracked.item()}"
        f", running_mean[:3] = [{mean}]"
    )
# ...but the batch was averaged in twice: 1 - 0.9**2 = 0.19, not 0.1
ratio = twice[1].running_mean / trunk[1].running_mean
print(f"two forwards / one forward = {ratio.mean():.4f}")
