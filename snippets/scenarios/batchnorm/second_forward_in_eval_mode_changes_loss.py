import copy

import torch
from torch import nn

torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(3, 8), nn.BatchNorm1d(8))
head_a, head_b = nn.Linear(8, 1), nn.Linear(8, 1)
x, y = torch.randn(16, 3), torch.randn(16, 1)
reference = copy.deepcopy(trunk)

# What loss_b should be: computed from the training-mode features.
features = reference(x)
loss_a = nn.functional.mse_loss(head_a(features), y)
loss_b_train = head_b(features).abs().mean()
(loss_a + loss_b_train).backward()

loss_a = nn.functional.mse_loss(head_a(trunk(x)), y)
loss_a.backward()
trunk.eval()  # no update of the running statistics...
loss_b = head_b(trunk(x)).abs().mean()
trunk.train()
loss_b.backward()

bn = trunk[1]
print(f"num_batches_tracked = {bn.num_batches_tracked.item()}")
# ...because eval mode normalises with the running statistics.
print(f"loss_b in train mode = {loss_b_train.item():.4f}")
print(f"loss_b in eval mode  = {loss_b.item():.4f}")
same = torch.allclose(trunk[0].weight.grad, reference[0].weight.grad)
print(f"same gradients as one backward: {same}")
