# https://github.com/lululxvi/deepxde/issues/1400
# A faithful reduction of deepxde's FPDE and Fractional (dynamic
# meshtype, learnable alpha), PointSetBC, and Model's PyTorch L-BFGS
# loop (_train_pytorch_lbfgs and its closure), on the fractional
# Poisson 1D inverse example.
import math
import warnings

import torch

warnings.filterwarnings("ignore", message="Sparse invariant")
torch.manual_seed(0)

alpha0 = 1.8
alpha = torch.tensor(1.5, requires_grad=True)  # dde.Variable(1.5)


def fpde(x, y, int_mat):
    """(D_{0+}^alpha + D_{1-}^alpha) u(x)"""
    if isinstance(int_mat, (list, tuple)) and len(int_mat) == 3:
        indices, values, shape = int_mat
        int_mat = torch.sparse_coo_tensor(
            list(zip(*indices)), values, shape, requires_grad=True
        )
        lhs = torch.sparse.mm(int_mat, y)
    else:
        lhs = torch.matmul(int_mat, y)
    lhs /= 2 * torch.cos(alpha * math.pi / 2)
    rhs = math.gamma(alpha0 + 2) * x
    return lhs - rhs[: lhs.numel()]


def func(x):
    return x * (torch.abs(1 - x**2)) ** (alpha0 / 2)


class Interval:
    def __init__(self, left, r):
        self.l, self.r, self.diam = left, r, r - left

    def inside(self, x):
        return ((self.l <= x) & (x <= self.r)).flatten()

    def on_boundary(self, x):
        return ((x - self.l).abs() < 1e-6) | ((x - self.r).abs() < 1e-6)

    def background_points(self, x, dirn, dist2npt, shift):
        dx = float(x[0] - self.l) if dirn < 0 else float(self.r - x[0])
        n = max(dist2npt(dx), 1)
        h = dx / n
        pts = (
            x[0]
            + dirn
            * torch.arange(-shift, n - shift + 1, dtype=torch.float32)
            * h
        )
        return pts[:, None]


class Scheme:
    def __init__(self, meshtype, resolution):
        self.meshtype, self.resolution = meshtype, resolution


class Fractional:
    """deepxde.data.fpde.Fractional, dynamic meshtype, 1D."""

    def __init__(self, alpha, geom, disc, x0):
        self.alpha, self.geom = alpha, geom
        self.disc, self.x0 = disc, x0
        self.x, self.xindex_start, self.w = None, None, None
        self._w_init = self._init_weights()

    def _init_weights(self):
        n = self.dynamic_dist2npts(self.geom.diam) + 1
        w = [
            torch.as_tensor(1.0) if torch.is_tensor(self.alpha) else 1.0
        ]
        for j in range(1, n):
            w.append(w[-1] * (j - 1 - self.alpha) / j)
        return torch.stack(w, 0)

    def get_x(self):
        self.x = self.get_x_dynamic()
        return self.x

    def get_matrix(self, sparse=False):
        return self.get_matrix_dynamic(sparse)

    def dynamic_dist2npts(self, dx):
        return int(math.ceil(self.disc.resolution[-1] * dx))

    def get_x_dynamic(self):
        dirns, dirn_w = [-1, 1], [1, 1]
        x, self.w = [], []
        for x0i in self.x0:
            xi = [
                self.geom.background_points(
                    x0i, dirn, self.dynamic_dist2npts, 0
                )
                for dirn in dirns
            ]
            wi = [
                dirn_w[i]
                * float(torch.linalg.norm(xi[i][1] - xi[i][0]))
                ** (-self.alpha)
                * self.get_weight(len(xi[i]) - 1)
                for i in range(len(dirns))
            ]
            # first order
            xi, wi = zip(*map(self.modify_first_order, xi, wi))
            x.append(torch.vstack(xi))
            self.w.append(torch.cat(wi, 0))
        return torch.vstack([self.x0] + x)

    def modify_first_order(self, x, w):
        x = torch.vstack((2 * x[0:1] - x[1:2], x[:-1]))
        if not self.geom.inside(x[0:1])[0]:
            return x[1:], w[1:]
        return x, w

    def get_weight(self, n):
        return self._w_init[: n + 1]

    def get_matrix_dynamic(self, sparse):
        if sparse:
            print("Generating sparse fractional matrix...")
            dense_shape = (self.x0.shape[0], self.x.shape[0])
            indices, values = [], []
            beg = self.x0.shape[0]
            for i in range(self.x0.shape[0]):
                for _ in range(self.w[i].shape[0]):
                    indices.append([i, beg])
                    beg += 1
            values = torch.cat(self.w, 0)
            return indices, values, dense_shape


class PointSetBC:
    def __init__(self, points, values):
        self.points, self.values = points, values

    def error(self, X, inputs, outputs, beg, end):
        return outputs[beg:end] - self.values


class FPDE:
    def __init__(
        self,
        geometry,
        fpde,
        alpha,
        bcs,
        resolution,
        meshtype="dynamic",
        num_domain=0,
        anchors=None,
    ):
        self.geom, self.pde, self.alpha, self.bcs = (
            geometry,
            fpde,
            alpha,
            bcs,
        )
        self.disc = Scheme(meshtype, resolution)
        self.num_domain, self.anchors = num_domain, anchors
        self.num_bcs = [len(bc.points) for bc in bcs]
        self.frac_train = None
        self.train_next_batch()

    def losses_train(
        self, targets, outputs, loss_fn, inputs, model, aux=None
    ):
        bcs_start = [0]
        for n in self.num_bcs:
            bcs_start.append(bcs_start[-1] + n)
        # do not cache int_mat when alpha is a learnable parameter
        if torch.is_tensor(self.alpha):
            # the fix: rebuild the alpha-dependent weights from the
            # current alpha, at each evaluation
            self.frac_train = Fractional(
                self.alpha, self.geom, self.disc, self.frac_train.x0
            )
            self.frac_train.get_x()
            int_mat = self.get_int_matrix(True)
        f = [self.pde(inputs, outputs, int_mat)]
        f = [fi[bcs_start[-1] :] for fi in f]
        losses = [loss_fn(torch.zeros_like(fi), fi) for fi in f]
        for i, bc in enumerate(self.bcs):
            beg, end = bcs_start[i], bcs_start[i + 1]
            error = bc.error(self.train_x, inputs, outputs, beg, end)
            losses.append(loss_fn(torch.zeros_like(error), error))
        return losses

    def train_next_batch(self, batch_size=None):
        # dynamic meshtype; train data not cached when alpha is
        # learnable
        X = torch.rand(self.num_domain, 1) * 2 - 1
        self.train_x_all = torch.vstack((self.anchors, X))
        x_bc = torch.vstack([bc.points for bc in self.bcs])
        # FPDE is only applied to the domain points.
        x_f = self.train_x_all[
            ~self.geom.on_boundary(self.train_x_all).flatten()
        ]
        self.frac_train = Fractional(
            self.alpha, self.geom, self.disc, x_f
        )
        X = self.frac_train.get_x()
        self.train_x = torch.vstack((x_bc, X))
        return self.train_x, None

    def get_int_matrix(self, training):
        int_mat = self.frac_train.get_matrix(sparse=True)
        num_bc = sum(self.num_bcs)
        indices, values, dense_shape = (
            int_mat  # array_ops_compat.zero_padding
        )
        indices = [(i + num_bc, j + num_bc) for i, j in indices]
        return (
            indices,
            values,
            (dense_shape[0] + num_bc, dense_shape[1] + num_bc),
        )


class FNN(torch.nn.Module):
    def __init__(self, layer_sizes):
        super().__init__()
        self.linears = torch.nn.ModuleList()
        for i in range(1, len(layer_sizes)):
            self.linears.append(
                torch.nn.Linear(layer_sizes[i - 1], layer_sizes[i])
            )
            torch.nn.init.xavier_normal_(self.linears[-1].weight)
            torch.nn.init.zeros_(self.linears[-1].bias)
        self._output_transform = None

    def apply_output_transform(self, transform):
        self._output_transform = transform

    def forward(self, inputs):
        x = inputs
        for linear in self.linears[:-1]:
            x = torch.tanh(linear(x))
        x = self.linears[-1](x)
        return self._output_transform(inputs, x)


class Model:
    def __init__(self, data, net):
        self.data, self.net = data, net

    def compile(
        self, optimizer, loss_weights, external_trainable_variables
    ):
        print("Compiling model...")
        self.loss_weights = torch.as_tensor(
            loss_weights, dtype=torch.float32
        )
        trainable_variables = (
            list(self.net.parameters()) + external_trainable_variables
        )
        self.opt = torch.optim.LBFGS(
            trainable_variables,
            lr=1,
            max_iter=5,
            max_eval=None,
            tolerance_grad=1e-8,
            tolerance_change=0,
            history_size=100,
        )

        def outputs_losses_train(inputs, targets):
            inputs = torch.as_tensor(inputs)
            inputs.requires_grad_()
            outputs_ = self.net(inputs)
            losses = self.data.losses_train(
                targets,
                outputs_,
                torch.nn.functional.mse_loss,
                inputs,
                self,
            )
            losses = torch.stack(losses)
            losses *= self.loss_weights
            return outputs_, losses

        def train_step(inputs, targets):
            def closure():
                losses = outputs_losses_train(inputs, targets)[1]
                total_loss = torch.sum(losses)
                self.opt.zero_grad()
                total_loss.backward()
                return total_loss

            return self.opt.step(closure)

        self.train_step = train_step

    def train(self, maxiter=15):
        print("Training model...")
        prev_n_iter = 0
        while prev_n_iter < maxiter:  # _train_pytorch_lbfgs
            X_train, y_train = self.data.train_next_batch()
            loss = self.train_step(X_train, y_train)
            n_iter = self.opt.state_dict()["state"][0]["n_iter"]
            if prev_n_iter == n_iter:
                break
            prev_n_iter = n_iter
            net_grad_norm = (
                torch.cat(
                    [p.grad.flatten() for p in self.net.parameters()]
                )
                .norm()
                .item()
            )
            print(
                f"step {n_iter}: train loss {loss.item():.3f}, "
                f"alpha {alpha.item():.3f}, "
                f"alpha.grad {alpha.grad.item():.3f}, "
                f"net grad norm {net_grad_norm:.2f}"
            )


geom = Interval(-1, 1)
observe_x = torch.linspace(-1, 1, 8)[:, None]
observe_y = PointSetBC(observe_x, func(observe_x))

# Dynamic auxiliary points
data = FPDE(
    geom,
    fpde,
    alpha,
    [observe_y],
    [20],
    meshtype="dynamic",
    num_domain=6,
    anchors=observe_x,
)

net = FNN([1] + [10] * 2 + [1])
net.apply_output_transform(lambda x, y: (1 - x**2) * y)

model = Model(data, net)
model.compile(
    "L-BFGS",
    loss_weights=[1, 100],
    external_trainable_variables=[alpha],
)
model.train()
