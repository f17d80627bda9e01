import torch

x = torch.tensor(3.0, requires_grad=True)
y = x**2

y.backward()

# The graph itself survives the backward pass; only the tensors its nodes saved are freed.
print(f"after backward, y.grad_fn is still {type(y.grad_fn).__name__}")
y.grad_fn._saved_self  # reading a freed saved tensor raises the same error as a second backward
