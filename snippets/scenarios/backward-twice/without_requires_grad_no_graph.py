import torch

# Leaving requires_grad off builds no graph at all, so there is nothing to backpropagate.
x = torch.tensor(3.0)
y = x**2

print(f"y.requires_grad = {y.requires_grad}, y.grad_fn = {y.grad_fn}")
y.backward()
