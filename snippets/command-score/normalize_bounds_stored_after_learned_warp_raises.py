"""BoTorch-style Normalize after a learnable input warp stores its
bounds with their graph; optimizing a test point then backpropagates
into the last training step's freed graph.

Source: https://github.com/meta-pytorch/botorch/issues/1635

The reporter chained a transform with learned parameters (a warp) and
an AffineInputTransform (Normalize). In training mode Normalize sets
its offset/coefficient buffers from the warped training inputs, so the
buffers hold a graph back to the warp parameters. After fitting, the
user optimizes a test X with loss.backward() and gets the error. Kept:
warp -> normalize-with-stored-bounds -> regressor, a short fit, then
gradient steps on a test point. Replaced: the GP by a tiny MLP and
BoTorch (whose installed version has the fix) by plain torch.
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
    def __init__(self, d):
        super().__init__()
        self.register_buffer("_offset", torch.zeros(1, d))
        self.register_buffer("_coefficient", torch.ones(1, d))

    def forward(self, X):
        if self.training:
            lo = X.amin(dim=-2, keepdim=True)
            self._offset = lo
            self._coefficient = X.amax(dim=-2, keepdim=True) - lo
        return (X - self._offset) / self._coefficient


class Model(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.warp, self.normalize = Warp(d), Normalize(d)
        self.net = nn.Sequential(
            nn.Linear(d, 8), nn.Tanh(), nn.Linear(8, 1)
        )

    def forward(self, X):
        return self.net(self.normalize(self.warp(X)))


train_X = torch.rand(6, 2)
train_Y = (train_X.sum(dim=-1, keepdim=True) * 3).sin()
model = Model(2)
opt = torch.optim.Adam(model.parameters(), lr=0.05)
for step in range(3):  # fit
    opt.zero_grad()
    loss = ((model(train_X) - train_Y) ** 2).mean()
    loss.backward()
    opt.step()

model.eval()
test_X = torch.full((1, 2), 0.3, requires_grad=True)
opt_x = torch.optim.Adam([test_X], lr=0.05)
print("fit done; optimizing test_X")
for i in range(3):
    opt_x.zero_grad()
    acq = -model(test_X).sum()
    acq.backward()  # reaches the stored bounds' freed graph
    opt_x.step()
