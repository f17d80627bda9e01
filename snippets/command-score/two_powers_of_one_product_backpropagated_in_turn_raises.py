"""Two outputs, y1 = z ** 2 and y2 = z ** 3, of one product z =
2 * (x + y), backpropagated one after the other.

Source: https://devgem.io/posts/understanding-pytorch-s-retain-graph-true-error
The post (a user's question with its answer) runs y1.backward() and
then y2.backward(), both built on the same z, and gets this error
at the second; its fix is retain_graph=True in the first call,
which keeps the intermediate values that y1's backward frees, so
that y2's backward can run through the same graph and add its
gradients into x.grad and y.grad.
Kept: the code as posted (x = [2.0] and y = [3.0] with
requires_grad, f = x + y, z = 2 * f, y1 = z ** 2, y2 = z ** 3,
y1.backward(), y2.backward()); changed: a print of x.grad and
y.grad after each backward.
"""

import torch

x = torch.tensor([2.0], requires_grad=True)
y = torch.tensor([3.0], requires_grad=True)
f = x + y
z = 2 * f
y1 = z**2
y2 = z**3
y1.backward()
print(
    f"after y1: x.grad {x.grad.item():.1f}, y.grad {y.grad.item():.1f}"
)
y2.backward()
print(
    f"after y2: x.grad {x.grad.item():.1f}, y.grad {y.grad.item():.1f}"
)
