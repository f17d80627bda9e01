"""A PDE residual loss u + u_x + u_xx, backpropagated, then built
again for the comparison cell with the derivatives made again.

Source: https://github.com/ktcarr/6.867-project/blob/main/proof_of_concept.ipynb
The notebook's second loss reused u_x and u_xx, whose graph (made by
backward(..., create_graph=True)) the first loss's backward freed.
Its next cell makes the derivatives again before its loss, and the
project's script, proof_of_concept.py, recalculates them with
torch.autograd.grad(..., create_graph=True) before each loss.
Kept: the raising program's first cell and its comparison with the
analytic derivatives; changed: before the second loss, u(x, t),
u_x and u_xx are made again with torch.autograd.grad as the script
does (it leaves w.grad alone), and checks that w.grad after each
backward equals the derivative of the loss written out (the
residual r = u + u_x + u_xx has dr/dw = x^2 t^2 + 2 x t^2 + 2 t^2),
the second adding the same again.
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


def dloss_dw():
    """d/dw of sum(r^2), r = u + u_x + u_xx, in float64"""
    xd, td = x.detach().double(), t.detach().double()
    wd = w.detach().double()
    r = (
        2 * xd**3 * td
        + wd * xd**2 * td**2
        - 6 * xd
        + 6 * xd**2 * td
        + 2 * wd * xd * td**2
        - 6
        + 12 * xd * td
        + 2 * wd * td**2
    )
    dr_dw = xd**2 * td**2 + 2 * xd * td**2 + 2 * td**2
    return (2 * r * dr_dw).sum().float()


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
print("  = dL/dw written out:", torch.allclose(w.grad, dloss_dw()))

## compare to actual
u_x_true = dudx_true(X)
u_xx_true = du2dx2_true(X)
print("u_x = analytic:", torch.allclose(u_x, u_x_true))
print("u_xx = analytic:", torch.allclose(u_xx, u_xx_true))

## the derivatives made again for this loss
u_ = u(x, t)
u_x = torch.autograd.grad(u_, x, torch.ones_like(x), create_graph=True)[
    0
]
u_xx = torch.autograd.grad(
    u_x, x, torch.ones_like(x), create_graph=True
)[0]
loss = mse(u_ + u_x + u_xx)
loss.backward()
print(f"w.grad {w.grad.item():.4e}")
print("  = twice dL/dw:", torch.allclose(w.grad, 2 * dloss_dw()))
