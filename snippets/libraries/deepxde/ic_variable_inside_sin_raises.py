"""An unknown constant inside an initial condition's sin(), on DeepXDE.

Source: https://github.com/lululxvi/deepxde/pull/2077
Tested with deepxde 1.15.0 (PyTorch backend), unmodified.
The user wanted to recover the constant C of the initial condition
u(x, 0) = sin(C x) from observations, training C with the network.
"""

import os

os.environ["DDE_BACKEND"] = "pytorch"

import deepxde as dde  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

dde.config.set_random_seed(0)
C = dde.Variable(1.0)  # the unknown; the data were made with pi


def pde(x, y):
    dy_t = dde.grad.jacobian(y, x, i=0, j=1)
    dy_xx = dde.grad.hessian(y, x, i=0, j=0)
    s = torch.sin(np.pi * x[:, 0:1])
    return dy_t - dy_xx + torch.exp(-x[:, 1:]) * (s - np.pi**2 * s)


def func(x):
    return np.sin(np.pi * x[:, 0:1]) * np.exp(-x[:, 1:])


def ic_func(x):  # the thread's initial condition, C inside sin()
    x = torch.as_tensor(x)
    return torch.sin(C * x[:, 0:1]) * torch.exp(-x[:, 1:2])


geom = dde.geometry.Interval(-1, 1)
timedomain = dde.geometry.TimeDomain(0, 1)
geomtime = dde.geometry.GeometryXTime(geom, timedomain)
bc = dde.icbc.DirichletBC(geomtime, func, lambda _, on_b: on_b)
ic = dde.icbc.IC(geomtime, ic_func, lambda _, on_initial: on_initial)
observe_x = np.vstack((np.linspace(-1, 1, num=10), np.full(10, 1))).T
observe_y = dde.icbc.PointSetBC(observe_x, func(observe_x))
data = dde.data.TimePDE(
    geomtime,
    pde,
    [bc, ic, observe_y],
    num_domain=40,
    num_boundary=20,
    num_initial=10,
    anchors=observe_x,
    solution=func,
    num_test=50,
)
net = dde.nn.FNN([2] + [32] * 3 + [1], "tanh", "Glorot uniform")
model = dde.Model(data, net)
model.compile(
    "adam", lr=0.001, external_trainable_variables=C, verbose=0
)
for step in range(3):
    model.train(iterations=1, verbose=0)
    print(f"step {step}: C {C.item():.4f}")
