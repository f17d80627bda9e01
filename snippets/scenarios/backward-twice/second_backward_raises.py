import torch

x = torch.tensor(3.0, requires_grad=True)
y = x**2  # pow saves x: its gradient is 2 * x

y.backward()
print(f"after the first backward: x.grad = {x.grad}")

# The same graph again, but the first pass freed pow's saved x.
y.backward()
