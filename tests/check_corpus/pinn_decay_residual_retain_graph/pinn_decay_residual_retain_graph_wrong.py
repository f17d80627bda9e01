# A physics-informed network for du/dt = -k u, u(0) = 1: the residual
# du/dt + k u at collocation points, du/dt from torch.autograd.grad.
# The loss's backward raised the backward-twice error (the grad call
# had freed u's graph, which the residual's k u term also uses);
# retain_graph=True made it run, but without create_graph=True du/dt
# is a constant: only the k u half of the residual trains the network.
import math

import torch
from torch import nn

torch.manual_seed(0)
k = 1.5
net = nn.Sequential(nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 32),
                    nn.Tanh(), nn.Linear(32, 1))
params = list(net.parameters())
optimizer = torch.optim.Adam(params, lr=1e-2)
t0 = torch.zeros(1, 1)
t_all = torch.rand(20, 64, 1) * 2
t_eval = torch.linspace(0, 2, 41).unsqueeze(1)


def objective(t):
    t = t.clone().requires_grad_(True)
    u = net(t)
    du_dt = torch.autograd.grad(u.sum(), t, create_graph=True)[0]
    return (du_dt + k * u).pow(2).mean() + (net(t0) - 1).pow(2).sum()


def rel(a, b):
    a = torch.cat([x.flatten() for x in a])
    b = torch.cat([x.flatten() for x in b])
    return ((a - b).norm() / b.norm()).item()


for step in range(20):
    t = t_all[step].clone().requires_grad_(True)
    u = net(t)
    du_dt = torch.autograd.grad(u, t, torch.ones_like(u),
                                retain_graph=True)[0]
    residual = du_dt + k * u
    loss = residual.pow(2).mean() + (net(t0) - 1).pow(2).sum()

    want = torch.autograd.grad(objective(t_all[step]), params)
    optimizer.zero_grad()
    loss.backward()
    used = [p.grad for p in params]
    optimizer.step()
    if step % 4 == 3 or step == 0:
        with torch.no_grad():
            exact = torch.exp(-k * t_eval)
            err = (net(t_eval) - exact).abs().max().item()
        print(f"step {step}: loss {loss.item():.4f}, max error vs "
              f"exp(-k t) {err:.4f}; grad vs the objective's "
              f"{rel(used, want):.3f} (relative)")
print(f"u(2) {net(torch.full((1, 1), 2.0)).item():.4f}, exact "
      f"{math.exp(-2 * k):.4f}")
