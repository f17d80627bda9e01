"""Two outputs, y1 = z ** 2 and y2 = z ** 3, of one product z =
2 * (x + y), backpropagated one after the other, the first with
retain_graph=True.

Source: https://devgem.io/posts/understanding-pytorch-s-retain-graph-true-error
The post's fix: retain_graph=True in y1.backward() keeps the values
that its backward would free, and y2.backward() runs through the
same graph.
Kept: the raising program; changed: y1.backward(retain_graph=True),
and checks of x.grad and y.grad against the derivatives written
out: 2z * 2 = 40 after y1 (z = 10), then 40 + 3z^2 * 2 = 640 after
y2, equal for x and y.
"""

import torch

x = torch.tensor([2.0], requires_grad=True)
y = torch.tensor([3.0], requires_grad=True)
f = x + y
z = 2 * f
y1 = z**2
y2 = z**3
y1.backward(retain_graph=True)
print(
    f"after y1: x.grad {x.grad.item():.1f}, y.grad {y.grad.item():.1f}"
)
zv = 2 * (2.0 + 3.0)
first = 2 * zv * 2
print(
    "  = 2z * 2:",
    x.grad.item() == first and y.grad.item() == first,
)
y2.backward()
print(
    f"after y2: x.grad {x.grad.item():.1f}, y.grad {y.grad.item():.1f}"
)
both = first + 3 * zv**2 * 2
print(
    "  = 2z * 2 + 3z^2 * 2:",
    x.grad.item() == both and y.grad.item() == both,
)
