# https://github.com/lululxvi/deepxde/issues/1612
# DeepXDE's DirichletBC with its npfunc_range_autocache wrapper,
# reduced to plain torch: an inverse problem whose unknown C sits in
# the boundary condition.
import numpy as np
import torch
from torch import nn


def npfunc_range_autocache(func):
    cache = {}

    def wrapper_cache(X, beg, end):
        key = (id(X), beg, end)
        if key not in cache:
            cache[key] = func(X[beg:end])
        return cache[key]

    return wrapper_cache


class DirichletBC:
    def __init__(self, func):
        self.func = npfunc_range_autocache(func)

    def error(self, X, outputs, beg, end):
        return outputs[beg:end] - self.func(X, beg, end)


torch.manual_seed(0)
C = torch.tensor(1.0, requires_grad=True)  # dde.Variable(1.0)
bc = DirichletBC(lambda x: torch.sin(C * torch.as_tensor(x)))
net = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))
# Training points: 2 on the boundary first, then 6 in the domain.
train_x = np.array(
    [[0.0], [1.0]] + [[v] for v in np.linspace(0.1, 0.9, 6)],
    dtype=np.float32,
)
opt = torch.optim.Adam([*net.parameters(), C], lr=1e-2)

for step in range(3):
    inputs = torch.as_tensor(train_x).requires_grad_()
    outputs = net(inputs)
    (du_x,) = torch.autograd.grad(
        outputs.sum(), inputs, create_graph=True
    )
    pde = du_x[2:] - torch.cos(2 * inputs[2:])
    bc_error = bc.error(train_x, outputs, 0, 2)
    loss = (pde**2).mean() + (bc_error**2).mean()
    fresh = torch.sin(C * torch.as_tensor(train_x[0:2]))
    same = torch.allclose(outputs[0:2] - bc_error, fresh)
    opt.zero_grad()
    loss.backward(retain_graph=True)  # the "fix": no error any more
    opt.step()
    print(
        f"step {step}: loss {loss.item():.4f}, C {C.item():.4f}, "
        f"BC values fresh: {same}"
    )
