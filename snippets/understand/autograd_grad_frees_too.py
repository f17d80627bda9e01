import torch

x = torch.tensor(3.0, requires_grad=True)
y = x**2

(dy_dx,) = torch.autograd.grad(y, x)  # frees y's graph like backward
print(f"dy/dx = {dy_dx.item()}")

y.backward()
