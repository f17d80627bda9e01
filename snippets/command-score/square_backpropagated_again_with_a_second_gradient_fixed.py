"""A square y = x * x backpropagated with one gradient, then again
with a second one, the first backward keeping the graph.

Source: https://discuss.pytorch.org/t/multiple-call-to-backward-still-works-when-retain-graph-false-why/9475
The user called y.backward() twice, first with a gradient of ones,
then with a random one, printing x.grad after each. The answer: with
y = x * x, whose backward needs x, the first backward needs
retain_graph=True.
Kept: the raising program; changed: retain_graph=True in the first
backward, and checks of x.grad after each backward against the
derivative written out (2 * x times the gradient, the second added
to the first).
"""

import torch

torch.manual_seed(0)
x = torch.ones(2, 2, requires_grad=True)
y = x * x
y.backward(torch.ones(2, 2), retain_graph=True)
print(x.grad)
first = 2 * x.detach() * torch.ones(2, 2)
print(f"x.grad = 2x: {torch.allclose(x.grad, first)}")
z = y * y
print(z)
gradient = torch.randn(2, 2)
y.backward(gradient)
print(x.grad)
both = first + 2 * x.detach() * gradient
print(f"x.grad = 2x + 2x * gradient: {torch.allclose(x.grad, both)}")
