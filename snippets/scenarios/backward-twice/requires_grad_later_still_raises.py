import torch

# Setting requires_grad late changes nothing: the graph is the same.
x = torch.tensor(3.0)
x.requires_grad_(True)
y = x**2

y.backward()
y.backward()
