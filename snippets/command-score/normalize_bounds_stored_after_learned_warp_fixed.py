"""BoTorch-style Normalize after a learnable input warp: fixed as
BoTorch did, the stored bounds keep their graph only in training mode
and are detached when the model is used in eval mode.

Source: https://github.com/meta-pytorch/botorch/issues/1635
(fix proposed in https://github.com/meta-pytorch/botorch/pull/1642;
AffineInputTransform.coefficient/offset now return the buffer only
"if self.learn_coefficients and self.training", else its .detach())

In training the bounds are recomputed from every batch, and the
reporter argued the warp should get gradient through them, so the
graph is kept there. In eval the bounds are constants of the fitted
model: a test point's gradient must not walk into the training
graph. Checks: each fit step's grads equal a fresh recompute (and
include the path through the bounds); each test-point gradient equals
a fresh recompute with constant bounds.
"""

import torch
import torch.nn as nn

torch.manual_seed(0)


class Warp(nn.Module):  # Kumaraswamy CDF warp, learned a and b
    def __init__(self, d):
        super().__init__()
        self.log_a = nn.Parameter(torch.zeros(d))
        self.log_b = nn.Parameter(torch.zeros(d))

    def forward(self, X):
        X = X.clamp(1e-4, 1 - 1e-4)
        a, b = self.log_a.exp(), self.log_b.exp()
        return 1 - (1 - X**a) ** b


class Normalize(nn.Module):  # bounds learned from the training X
    def __init__(self, d, bounds_grad=True):
        super().__init__()
        self.bounds_grad = bounds_grad
        self.register_buffer("_offset", torch.zeros(1, d))
        self.register_buffer("_coefficient", torch.ones(1, d))

    @property
    def offset(self):  # FIX: graph only while training
        keep = self.training and self.bounds_grad
        return self._offset if keep else self._offset.detach()

    @property
    def coefficient(self):  # FIX: graph only while training
        keep = self.training and self.bounds_grad
        c = self._coefficient
        return c if keep else c.detach()

    def forward(self, X):
        if self.training:
            lo = X.amin(dim=-2, keepdim=True)
            self._offset = lo
            self._coefficient = X.amax(dim=-2, keepdim=True) - lo
        return (X - self.offset) / self.coefficient


class Model(nn.Module):
    def __init__(self, d, bounds_grad=True):
        super().__init__()
        self.warp = Warp(d)
        self.normalize = Normalize(d, bounds_grad)
        self.net = nn.Sequential(
            nn.Linear(d, 8), nn.Tanh(), nn.Linear(8, 1)
        )

    def forward(self, X):
        return self.net(self.normalize(self.warp(X)))


def fresh(model, bounds_grad=True):  # a copy without any graph
    ref = Model(2, bounds_grad)
    ref.load_state_dict(model.state_dict())  # detached copies
    ref.train(model.training)
    return ref


train_X = torch.rand(6, 2)
train_Y = (train_X.sum(dim=-1, keepdim=True) * 3).sin()
model = Model(2)
opt = torch.optim.Adam(model.parameters(), lr=0.05)
for step in range(3):  # fit
    ref, cut = fresh(model), fresh(model, bounds_grad=False)
    ref_loss = ((ref(train_X) - train_Y) ** 2).mean()
    ref_g = torch.autograd.grad(ref_loss, list(ref.parameters()))
    cut_loss = ((cut(train_X) - train_Y) ** 2).mean()
    cut_a = torch.autograd.grad(cut_loss, cut.warp.log_a)[0]

    opt.zero_grad()
    loss = ((model(train_X) - train_Y) ** 2).mean()
    loss.backward()
    same = all(
        torch.allclose(p.grad, g)
        for p, g in zip(model.parameters(), ref_g)
    )
    via_bounds = not torch.allclose(model.warp.log_a.grad, cut_a)
    print(
        f"fit step {step}: grads match recompute: {same},"
        f" warp grad uses bounds: {via_bounds}"
    )
    opt.step()

model.eval()
test_X = torch.full((1, 2), 0.3, requires_grad=True)
opt_x = torch.optim.Adam([test_X], lr=0.05)
for i in range(3):
    ref = fresh(model)
    x_ref = test_X.detach().clone().requires_grad_()
    g_ref = torch.autograd.grad(-ref(x_ref).sum(), x_ref)[0]

    opt_x.zero_grad()
    acq = -model(test_X).sum()
    acq.backward()
    same = torch.allclose(test_X.grad, g_ref)
    nonzero = bool(test_X.grad.abs().sum() > 0)
    print(
        f"test step {i}: test_X.grad matches recompute: {same},"
        f" non-zero: {nonzero}"
    )
    opt_x.step()
print(
    "eval bounds carry no graph:",
    not model.normalize.offset.requires_grad,
)
