import torch

x = torch.tensor(3.0, requires_grad=True)
y = x**2  # pow saves x: its backward needs it to compute 2 * x

y.backward()
print(f"after the first backward: x.grad = {x.grad}")

y.backward()  # the same graph again, but pow's saved x was freed by the first pass
