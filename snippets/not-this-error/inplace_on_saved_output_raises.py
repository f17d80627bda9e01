import torch
from torch import nn

torch.manual_seed(0)
layer = nn.Linear(3, 4)
x = torch.randn(8, 3)
keep = torch.tensor([1.0, 1.0, 0.0, 1.0])

h = torch.sigmoid(layer(x))  # sigmoid saves h for its gradient
h *= keep  # in place: changes the saved tensor
h.sum().backward()
