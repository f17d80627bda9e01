import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x**2
y.sum().backward()

# Saved Python values (the exponent, sizes) stay readable...
print(f"after backward: _saved_exponent = {y.grad_fn._saved_exponent}")
# ...saved tensors do not.
y.grad_fn._saved_self
