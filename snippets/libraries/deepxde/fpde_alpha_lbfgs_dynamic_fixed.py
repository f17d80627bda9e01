"""Fix: rebuild the fractional weights from alpha in every evaluation.

Source: https://github.com/lululxvi/deepxde/issues/1400
Tested with deepxde 1.15.0 (PyTorch backend), unmodified.
The user wanted the network and the fractional order alpha of a 1D
fractional Poisson equation trained together by L-BFGS, with dynamic
auxiliary points, to recover alpha (1.8) from observations.
"""

import contextlib
import io
import os
import warnings

os.environ["DDE_BACKEND"] = "pytorch"
warnings.filterwarnings("ignore", message="Sparse invariant")

import deepxde as dde  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from deepxde.data.fpde import Fractional  # noqa: E402
from scipy.special import gamma  # noqa: E402

dde.config.set_random_seed(0)
alpha0 = 1.8
alpha = dde.Variable(1.5)


def fpde(x, y, int_mat):
    """(D_{0+}^alpha + D_{1-}^alpha) u(x)"""
    if isinstance(int_mat, (list, tuple)) and len(int_mat) == 3:
        indices, values, shape = int_mat
        int_mat = torch.sparse_coo_tensor(
            list(zip(*indices)), values, shape
        )
        lhs = torch.sparse.mm(int_mat, y)
    else:
        lhs = torch.matmul(int_mat, y)
    lhs /= 2 * torch.cos(alpha * np.pi / 2)
    rhs = gamma(alpha0 + 2) * x
    return lhs - rhs[: lhs.numel()]


def func(x):
    return x * (np.abs(1 - x**2)) ** (alpha0 / 2)


geom = dde.geometry.Interval(-1, 1)
observe_x = np.linspace(-1, 1, num=8)[:, None]
observe_y = dde.icbc.PointSetBC(observe_x, func(observe_x))


class FPDEFreshWeights(dde.data.FPDE):
    fresh = []  # per evaluation: new weights, in alpha's graph

    def losses_train(self, *args, **kwargs):
        # the weights are functions of alpha: make them again, now
        old = self.frac_train
        self.frac_train = Fractional(
            self.alpha, self.geom, self.disc, old.x0
        )
        self.frac_train.get_x()
        w = self.frac_train.w[0]
        self.fresh.append(w is not old.w[0] and w.grad_fn is not None)
        return super().losses_train(*args, **kwargs)


# Dynamic auxiliary points
data = FPDEFreshWeights(
    geom,
    fpde,
    alpha,
    observe_y,
    [20],
    meshtype="dynamic",
    num_domain=6,
    anchors=observe_x,
    solution=func,
    num_test=10,
)
net = dde.nn.FNN([1] + [10] * 2 + [1], "tanh", "Glorot normal")
net.apply_output_transform(lambda x, y: (1 - x**2) * y)
model = dde.Model(data, net)
dde.optimizers.set_LBFGS_options(maxiter=15)
model.compile(
    "L-BFGS",
    loss_weights=[1, 100],
    external_trainable_variables=[alpha],
    verbose=0,
)
quiet = io.StringIO()  # deepxde prints a line per matrix it builds
with contextlib.redirect_stdout(quiet):
    model.train(verbose=0)
    loss0 = float(np.sum(model.losshistory.loss_train[0]))
    loss = float(np.sum(model.losshistory.loss_train[-1]))
print(
    "every evaluation made new weights in alpha's graph: "
    f"{all(FPDEFreshWeights.fresh)}"
)
print(f"loss {loss0:.2f} -> {loss:.2f}, lower: {loss < loss0}")
print(
    f"alpha 1.5 -> {alpha.item():.2f} (the data's is 1.8), "
    f"alpha.grad non-zero {bool(alpha.grad != 0)}"
)
grads = [
    p.grad is not None and bool(p.grad.abs().sum() > 0)
    for p in net.parameters()
]
print(f"network: {sum(grads)} of {len(grads)} tensors have a gradient")
