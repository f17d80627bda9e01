"""A square y = x * x backpropagated with one gradient, then again
with a second one.

Source: https://discuss.pytorch.org/t/multiple-call-to-backward-still-works-when-retain-graph-false-why/9475
The user called y.backward() twice, first with a gradient of ones,
then with a random one, printing x.grad after each, and asked why it
works with retain_graph=False as well as with retain_graph=True. The
answer: y = x + 2 saves nothing for its backward, so nothing is
freed; "if you change y = x + 2 to y = x * x, you will see an
error", this one; in general the first backward needs
retain_graph=True.
Kept: the user's code (x of ones(2, 2) with requires_grad, the
first y.backward(torch.ones(2, 2)) and print of x.grad, z = y * y
and its print, the second y.backward(gradient) with a random
gradient and print of x.grad) with the answer's change, y = x * x,
and the first backward without retain_graph (the user's
retain_graph=False); changed: Variable became a plain tensor,
seeded.
"""

import torch

torch.manual_seed(0)
x = torch.ones(2, 2, requires_grad=True)
y = x * x
y.backward(torch.ones(2, 2))
print(x.grad)
z = y * y
print(z)
gradient = torch.randn(2, 2)
y.backward(gradient)
print(x.grad)
