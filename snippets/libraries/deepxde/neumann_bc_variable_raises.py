"""A trainable variable in a Neumann condition's value, on DeepXDE.

Source: https://github.com/lululxvi/deepxde/issues/1612
Tested with deepxde 1.15.0 (PyTorch backend), unmodified.
The user wanted to recover C1, which appears only in the boundary
condition dy/dn = C1/(2D) at x = 0, from measured values of y.
"""

import os

os.environ["DDE_BACKEND"] = "pytorch"

import deepxde as dde  # noqa: E402
import numpy as np  # noqa: E402

dde.config.set_random_seed(0)
L, D = 1.0, 0.5
C1 = dde.Variable(0.1)  # the parameter to be solved; the data say 1


def pde(x, y):
    dy_xx = dde.grad.hessian(y, x)
    return dy_xx - y / L**2


def boundary(x, on_boundary):
    return on_boundary and dde.utils.isclose(x[0], 0)


geom = dde.geometry.Interval(0, L)
bc = dde.icbc.NeumannBC(geom, lambda x: C1 / (2 * D), boundary)
observe_x = np.array([[0.25], [0.5], [0.75]])
observe_y = dde.icbc.PointSetBC(observe_x, np.exp(-observe_x / L))
data = dde.data.PDE(
    geom,
    pde,
    [bc, observe_y],
    num_domain=8,
    num_boundary=2,
    anchors=observe_x,
    num_test=10,
)
net = dde.nn.FNN([1, 16, 1], "tanh", "Glorot uniform")
model = dde.Model(data, net)
external_trainable_variables = [C1]
variable = dde.callbacks.VariableValue(
    external_trainable_variables, period=1, precision=4
)
model.compile(
    "adam",
    lr=0.001,
    external_trainable_variables=external_trainable_variables,
    verbose=0,
)
model.train(iterations=3, callbacks=[variable], verbose=0)
