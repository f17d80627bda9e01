import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
x, y = torch.randn(16, 4), torch.randn(16, 1)
loss = nn.functional.mse_loss(model(x), y)

(gw,) = torch.autograd.grad(loss, model.weight)  # frees the graph
print("weight: gradient computed")

# Too late: this call did not free the graph, the one above did.
(gb,) = torch.autograd.grad(loss, model.bias, retain_graph=True)
