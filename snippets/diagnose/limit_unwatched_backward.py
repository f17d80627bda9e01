import torch
from freed_graph_report import watch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.exp()
y.sum().backward()  # before watching began, as in an earlier cell

with watch():
    y.pow(2).sum().backward()
