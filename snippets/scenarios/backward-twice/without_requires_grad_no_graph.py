import torch

# With requires_grad off, no graph is built: nothing to backpropagate.
x = torch.tensor(3.0)
y = x**2

print(f"y.requires_grad = {y.requires_grad}, y.grad_fn = {y.grad_fn}")
y.backward()
