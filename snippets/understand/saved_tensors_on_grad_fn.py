import torch

x = torch.tensor(3.0, requires_grad=True)
y = x.exp()
z = y * x

# Each node of the graph keeps the tensors its derivative formula needs.
mul, exp = z.grad_fn, y.grad_fn
print(f"z.grad_fn = {type(mul).__name__}")
print(f"  saved self   = {mul._saved_self}  (y, for dz/dx)")
print(f"  saved other  = {mul._saved_other}  (x, for dz/dy)")
print(f"y.grad_fn = {type(exp).__name__}")
print(
    f"  saved result = {exp._saved_result}  (exp is its own gradient)"
)
