import torch
from torch import nn

torch.manual_seed(0)
layer = nn.Linear(3, 4)
x = torch.randn(8, 3)
keep = torch.tensor([1.0, 1.0, 0.0, 1.0])

# Out of place: a new tensor, the saved h stays as sigmoid made it.
h = torch.sigmoid(layer(x))
h = h * keep
h.sum().backward()
out_of_place = layer.weight.grad.clone()

# Or keep the in-place line and modify a copy.
layer.weight.grad = None
h = torch.sigmoid(layer(x)).clone()
h *= keep
h.sum().backward()
print(f"same gradient: {torch.equal(layer.weight.grad, out_of_place)}")
