import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
x, target = torch.randn(32, 4), torch.randn(32, 1)


@torch.compile(backend="aot_eager")
def compute_loss(x, target):
    return nn.functional.mse_loss(model(x), target)


loss = compute_loss(x, target)
# The whole compiled region is a single node of the autograd graph.
print(f"loss.grad_fn: {loss.grad_fn.name()}")
loss.backward()
grad_norm = model[0].weight.grad.norm()
print(f"first backward done: |grad| = {grad_norm:.4f}")
loss.backward()
