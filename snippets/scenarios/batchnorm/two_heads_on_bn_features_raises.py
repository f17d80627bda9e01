import torch
from torch import nn

torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(3, 8), nn.BatchNorm1d(8))
head_a, head_b = nn.Linear(8, 1), nn.Linear(8, 1)
x, y = torch.randn(16, 3), torch.randn(16, 1)

features = trunk(x)  # one BatchNorm output, used by both heads
loss_a = nn.functional.mse_loss(head_a(features), y)
loss_b = head_b(features).abs().mean()

loss_a.backward()  # frees what BatchNorm saved: input, mean, 1/std
print(f"loss_a backward done, loss_a = {loss_a.item():.4f}")
# head_b's graph is new, but below `features` it is the same one.
loss_b.backward()
