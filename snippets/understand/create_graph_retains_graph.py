import torch

x = torch.tensor(3.0, requires_grad=True)
y = x**3

# create_graph=True records the gradient's own computation, so the
# gradient can be differentiated again; it also keeps y's graph.
(dy_dx,) = torch.autograd.grad(y, x, create_graph=True)
has_graph = dy_dx.grad_fn is not None
print(f"dy/dx = {dy_dx.item()} (has a grad_fn: {has_graph})")

(d2y_dx2,) = torch.autograd.grad(dy_dx, x)
print(f"d2y/dx2 = {d2y_dx2.item()}")

y.backward()  # y's graph was retained, so this still works
print(f"x.grad = {x.grad.item()}")
