import torch
from torch import nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
compiled = torch.compile(critic, backend="aot_eager")
real = torch.randn(16, 2).requires_grad_()

out_real = compiled(real)
# R1 penalty: create_graph=True builds a graph through the compiled
# backward, which aot_autograd cannot differentiate.
(grad_real,) = torch.autograd.grad(
    out_real.sum(), real, create_graph=True
)
print(f"grad_real.grad_fn: {grad_real.grad_fn.name()}")
loss = -out_real.mean() + 5.0 * grad_real.pow(2).sum(dim=1).mean()
loss.backward()
