import torch

x = torch.tensor(3.0, requires_grad=True)
y = x.exp()
z = y * x

# Each node of the graph keeps the tensors its derivative formula needs.
print(f"z.grad_fn = {type(z.grad_fn).__name__}")
print(f"  saved self  = {z.grad_fn._saved_self}  (y, needed for dz/dx)")
print(f"  saved other = {z.grad_fn._saved_other}  (x, needed for dz/dy)")
print(f"y.grad_fn = {type(y.grad_fn).__name__}")
print(f"  saved result = {y.grad_fn._saved_result}  (exp(x) is its own derivative)")
