"""A PDE residual loss u + u_x + u_xx whose derivatives, made with
create_graph=True, are used again in a second loss after the first
loss's backward.

Source: https://github.com/ktcarr/6.867-project/blob/main/proof_of_concept.ipynb
A course project's proof of concept for physics-informed training:
u(x, t) = 2x^3 t + w x^2 t^2 - 6x with a parameter w, the loss the
mean square of u + u_x + u_xx. The notebook takes u_x and u_xx from
x.grad after backward(..., create_graph=True), backpropagates the
loss, then, in the cell that compares the derivatives with the ones
written out, builds the loss again from u(x, t) and the same u_x and
u_xx and gets this error at its backward. The notebook's next cell
makes the derivatives again (with jacobian) before its loss, and
the project's script, proof_of_concept.py, resets x and w and
recalculates the derivatives before each loss.
Kept: the two cells as posted (x, t and w, u(x, t), the backward
with create_graph=True for u_x and u_t, x.grad.zero_(), the second
backward for u_xx, the zeroed grads, mse, loss.backward(), the
analytic derivatives, the second loss from u(x, t), u_x and u_xx and
its backward); changed: the derivatives' prints became comparisons
with the analytic ones, w.grad is printed to four digits.
"""

import torch

torch.manual_seed(0)


### Compute derivatives analytically
def dudx_true(X):
    x = X.view(2, -1)[0]
    return 6 * x**2 * t + 2 * w * x * t**2 - 6


def du2dx2_true(X):
    x = X.view(2, -1)[0]
    return 12 * x * t + 2 * w * t**2


def mse(x):
    return torch.sum(x**2).mean()


## efficient way
N = 10  # number of samples
w = torch.tensor(5.0, requires_grad=True)
t = torch.linspace(5, 30, N)
t.requires_grad = True
x = torch.linspace(0, 1, N)
x.requires_grad = True
X = torch.cat([x, t], dim=0)


def u(x, t):
    """function"""
    return 2 * x**3 * t + w * x**2 * t**2 - 6 * x


u_ = u(x, t)

## Compute first derivative (WRT x)
u_.backward(torch.ones_like(x), create_graph=True)
u_x = x.grad.clone()
u_t = t.grad.clone()

## Compute second derivative
x.grad.zero_()  # zero out gradients of x first
u_x.backward(torch.ones_like(x), create_graph=True)
u_xx = x.grad.clone()

## Finally, compute loss WRT parameters
x.grad.zero_()  # zero out gradients first
t.grad.zero_()
w.grad.zero_()

## compute loss
loss = mse(u_ + u_x + u_xx)
loss.backward()
print(f"w.grad {w.grad.item():.4e}")

## compare to actual
u_x_true = dudx_true(X)
u_xx_true = du2dx2_true(X)
print("u_x = analytic:", torch.allclose(u_x, u_x_true))
print("u_xx = analytic:", torch.allclose(u_xx, u_xx_true))

loss = mse(u(x, t) + u_x + u_xx)
loss.backward()  # >> RuntimeError
print(f"w.grad {w.grad.item():.4e}")
