"""A product z = x @ y.T backpropagated twice with the same
gradient, the first call with retain_graph=True.

Source: https://discuss.pytorch.org/t/how-to-understand-calling-backward-clears-the-computation-graph/10273
The answer: with retain_graph=False the intermediate outputs the
backward needs (here x and y, saved by the product) are freed; a
second backward needs retain_graph=True in the first.
Kept: the raising program; changed: retain_graph=True in the first
z.backward(), and a check of the gradients against the derivative
written out: x.grad = ones(5, 5) @ y, then twice that, and y.grad
= ones(5, 5).T @ x, then twice that.
"""

import torch

torch.manual_seed(0)
x = torch.randn(5, 3, requires_grad=True)
y = torch.randn(5, 3, requires_grad=True)
z = torch.mm(x, torch.transpose(y, 0, 1))
z.backward(torch.ones(5, 5), retain_graph=True)
print(f"first: x.grad sum {x.grad.sum().item():.4f}")
gx = torch.ones(5, 5) @ y.detach()
gy = torch.ones(5, 5).T @ x.detach()
ok = torch.allclose(x.grad, gx) and torch.allclose(y.grad, gy)
print(f"  = ones @ y and ones.T @ x: {ok}")
z.backward(torch.ones(5, 5), retain_graph=False)
print(f"second: x.grad sum {x.grad.sum().item():.4f}")
ok = torch.allclose(x.grad, 2 * gx) and torch.allclose(y.grad, 2 * gy)
print(f"  = twice that: {ok}")
