import torch
from torch import nn

torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(3, 8), nn.BatchNorm1d(8))
head_a, head_b = nn.Linear(8, 1), nn.Linear(8, 1)
x, y = torch.randn(16, 3), torch.randn(16, 1)

features = trunk(x)
loss_a = nn.functional.mse_loss(head_a(features), y)
loss_b = head_b(features).abs().mean()

# Per-loss gradients, e.g. to log or clip them separately.
loss_a.backward(retain_graph=True)  # keep BatchNorm's saved tensors
grad_a = trunk[0].weight.grad.clone()
loss_b.backward()  # the last backward frees the graph
grad_b = trunk[0].weight.grad - grad_a

print(f"|grad from loss_a| = {grad_a.norm():.4f}")
print(f"|grad from loss_b| = {grad_b.norm():.4f}")
print(f"|accumulated grad| = {trunk[0].weight.grad.norm():.4f}")
print(f"num_batches_tracked = {trunk[1].num_batches_tracked.item()}")
