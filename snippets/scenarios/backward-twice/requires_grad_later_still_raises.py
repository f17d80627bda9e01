import torch

# Turning requires_grad on only when needed changes nothing: the graph is built the same way.
x = torch.tensor(3.0)
x.requires_grad_(True)
y = x**2

y.backward()
y.backward()
