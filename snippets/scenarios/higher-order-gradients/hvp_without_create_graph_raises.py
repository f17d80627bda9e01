import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 1, bias=False)
x, t = torch.randn(32, 3), torch.randn(32, 1)

loss = nn.functional.mse_loss(torch.tanh(model(x)), t)
# No create_graph: g is a plain tensor, the gradient's graph is gone.
(g,) = torch.autograd.grad(loss, model.weight)
print(f"g.requires_grad = {g.requires_grad}, g.grad_fn = {g.grad_fn}")

v = torch.ones(1, 3)
torch.autograd.grad(g, model.weight, grad_outputs=v)
