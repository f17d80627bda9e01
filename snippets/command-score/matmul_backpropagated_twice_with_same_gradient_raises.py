"""A product z = x @ y.T backpropagated twice with the same
gradient, where an addition can be.

Source: https://discuss.pytorch.org/t/how-to-understand-calling-backward-clears-the-computation-graph/10273
The user read that calling backward clears the graph, so that a
second call raises, and showed it: z = torch.mm(x, y.T), then
z.backward(torch.ones(5, 5), retain_graph=False) twice, the second
raising this error; with z = x + y the two calls run, the gradients
accumulating. They asked why the two cases differ. The answer: with
retain_graph=False the intermediate outputs needed for the backward
are freed; an addition saves none, so a second call may still work,
but one should not rely on it: a second backward needs
retain_graph=True in the first ("That makes sense").
Kept: the code as posted (x and y of torch.Tensor(5, 3) with
requires_grad, z = torch.mm(x, torch.transpose(y, 0, 1)), two
z.backward(torch.ones(5, 5), retain_graph=False)); changed:
Variable became a plain tensor, the uninitialized torch.Tensor(5, 3)
seeded random values, a print of the gradients' sums after each
backward.
"""

import torch

torch.manual_seed(0)
x = torch.randn(5, 3, requires_grad=True)
y = torch.randn(5, 3, requires_grad=True)
z = torch.mm(x, torch.transpose(y, 0, 1))
z.backward(torch.ones(5, 5), retain_graph=False)
print(f"first: x.grad sum {x.grad.sum().item():.4f}")
z.backward(torch.ones(5, 5), retain_graph=False)  # >> RuntimeError
print(f"second: x.grad sum {x.grad.sum().item():.4f}")
