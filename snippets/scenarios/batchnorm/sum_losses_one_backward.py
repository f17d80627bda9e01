import torch
from torch import nn

torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(3, 8), nn.BatchNorm1d(8))
head_a, head_b = nn.Linear(8, 1), nn.Linear(8, 1)
x, y = torch.randn(16, 3), torch.randn(16, 1)

# --8<-- [start:fix]
features = trunk(x)
loss_a = nn.functional.mse_loss(head_a(features), y)
loss_b = head_b(features).abs().mean()
(loss_a + loss_b).backward()  # one backward through BatchNorm
# --8<-- [end:fix]

bn = trunk[1]
print(f"trunk weight grad norm = {trunk[0].weight.grad.norm():.4f}")
print(f"num_batches_tracked = {bn.num_batches_tracked.item()}")
