"""Fix: the Neumann condition as an OperatorBC, made again every step.

Source: https://github.com/lululxvi/deepxde/issues/1612
Tested with deepxde 1.15.0 (PyTorch backend), unmodified.
The user wanted to recover C1, which appears only in the boundary
condition dy/dn = C1/(2D) at x = 0, from measured values of y.
"""

import os

os.environ["DDE_BACKEND"] = "pytorch"

import deepxde as dde  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

dde.config.set_random_seed(0)
L, D = 1.0, 0.5
C1 = dde.Variable(0.1)  # the parameter to be solved; the data say 1


def pde(x, y):
    dy_xx = dde.grad.hessian(y, x)
    return dy_xx - y / L**2


def boundary(x, on_boundary):
    return on_boundary and dde.utils.isclose(x[0], 0)


geom = dde.geometry.Interval(0, L)


def bc_residual(x, y, _):  # dy/dn - C1/(2D), built again every step
    dy_n = -dde.grad.jacobian(y, x)  # the outward normal at 0 is -1
    return dy_n - C1 / (2 * D)


bc = dde.icbc.OperatorBC(geom, bc_residual, boundary)
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
model.compile(
    "adam",
    lr=0.001,
    external_trainable_variables=external_trainable_variables,
    verbose=0,
)
x_bc = torch.as_tensor(data.train_x[: data.num_bcs[0]])
for step in range(3):
    model.train(iterations=1, verbose=0)
    x = x_bc.clone().requires_grad_()
    (dy_x,) = torch.autograd.grad(net(x).sum(), x)
    with torch.no_grad():  # the BC term from the current net and C1
        fresh = ((-dy_x - C1 / (2 * D)) ** 2).mean().item()
    used = float(model.train_state.loss_train[1])
    print(
        f"step {step}: C1 {C1.item():.4f}, C1.grad non-zero "
        f"{bool(C1.grad != 0)}, BC term fresh: "
        f"{bool(np.isclose(used, fresh, rtol=1e-4))}"
    )
grads = [
    p.grad is not None and bool(p.grad.abs().sum() > 0)
    for p in net.parameters()
]
print(f"network: {sum(grads)} of {len(grads)} tensors have a gradient")
