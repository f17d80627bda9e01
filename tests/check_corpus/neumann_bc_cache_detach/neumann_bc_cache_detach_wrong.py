# An inverse problem in DeepXDE style: the unknown C1 appears only in
# a Neumann condition; the condition's values go through DeepXDE's
# npfunc_range_autocache wrapper.
import numpy as np
import torch
from torch import nn


def npfunc_range_autocache(func):
    cache = {}

    def wrapper_cache(X, beg, end):
        key = (id(X), beg, end)
        if key not in cache:
            cache[key] = func(X[beg:end]).detach()
        return cache[key]

    return wrapper_cache


class NeumannBC:
    def __init__(self, func):
        self.func = npfunc_range_autocache(func)

    def error(self, X, inputs, outputs, beg, end):
        values = self.func(X, beg, end)
        (dydx,) = torch.autograd.grad(
            outputs.sum(), inputs, create_graph=True
        )
        return -dydx[beg:end] - values  # outward normal at x=0 is -1


torch.manual_seed(0)
L, D = 1.0, 0.5
C1 = torch.tensor(0.1, requires_grad=True)  # dde.Variable(0.1)
bc = NeumannBC(lambda x: C1 / (2 * D))
net = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))
# Training points: the boundary point x=0 first, then the domain.
train_x = np.linspace(0, L, 8, dtype=np.float32).reshape(-1, 1)
x_obs = torch.tensor([[0.25], [0.5], [0.75]])
y_obs = torch.cosh(x_obs / L)  # the measured data
opt = torch.optim.Adam([*net.parameters(), C1], lr=1e-2)

for step in range(4):
    inputs = torch.as_tensor(train_x).requires_grad_()
    y = net(inputs)
    (dy_x,) = torch.autograd.grad(y.sum(), inputs, create_graph=True)
    (dy_xx,) = torch.autograd.grad(
        dy_x.sum(), inputs, create_graph=True
    )
    pde = dy_xx - y / L**2
    loss = (
        (pde**2).mean()
        + (bc.error(train_x, inputs, y, 0, 1) ** 2).mean()
        + ((net(x_obs) - y_obs) ** 2).mean()
    )
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.3f}, C1 {C1.item():.3f}")
