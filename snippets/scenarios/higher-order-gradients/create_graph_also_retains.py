import torch

x = torch.tensor(3.0, requires_grad=True)

# retain_graph defaults to create_graph: this call keeps y's graph.
y = x**3
(dy_dx,) = torch.autograd.grad(y, x, create_graph=True)
y.backward()
print(f"create_graph=True alone: y.backward() works, x.grad = {x.grad}")

# Passing retain_graph=False explicitly frees it after all.
y = x**3
(dy_dx,) = torch.autograd.grad(
    y, x, create_graph=True, retain_graph=False
)
y.backward()
