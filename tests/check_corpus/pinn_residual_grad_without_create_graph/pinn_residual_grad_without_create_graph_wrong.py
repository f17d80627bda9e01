# Written case: a PINN for u'(x) = cos(x) with a few observed values of u. The residual's
# u_x comes from torch.autograd.grad, which freed u's graph before loss.backward().
# Wrong fix: retain_graph=True on autograd.grad (without create_graph=True).
import math

import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1))
opt = torch.optim.Adam(net.parameters(), lr=5e-3)
x = torch.linspace(0, 2 * math.pi, 64).reshape(-1, 1).requires_grad_(True)
obs_idx = torch.tensor([0, 40])
u_obs = torch.sin(x.detach()[obs_idx])

for it in range(300):
    opt.zero_grad()
    u = net(x)
    u_x = torch.autograd.grad(u, x, grad_outputs=torch.ones_like(u), retain_graph=True)[0]
    residual = u_x - torch.cos(x.detach())
    data_loss = (u[obs_idx] - u_obs).pow(2).mean()
    loss = data_loss + residual.pow(2).mean()
    loss.backward()
    opt.step()
err = (net(x).detach() - torch.sin(x.detach())).abs().max().item()
print(f"final loss {loss.item():.4f} max|u-sin| {err:.3f}")
