import torch

x = torch.tensor(3.0, requires_grad=True)
y = x**2

y.backward()

# The graph survives backward; only what its nodes saved is freed.
print(f"after backward, y.grad_fn is still {type(y.grad_fn).__name__}")
# Reading a freed saved tensor raises the second-backward error.
y.grad_fn._saved_self
