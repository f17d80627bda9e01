import math

import torch
import torch.nn as nn

torch.manual_seed(0)

K = 2.0
net = nn.Sequential(
    nn.Linear(1, 32),
    nn.Tanh(),
    nn.Linear(32, 32),
    nn.Tanh(),
    nn.Linear(32, 1),
)
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
x0 = torch.zeros(1, 1)

for step in range(2000):
    x = torch.rand(256, 1).requires_grad_(True)
    u = net(x)
    (du_dx,) = torch.autograd.grad(u.sum(), x)

    residual = du_dx + K * u
    physics_loss = residual.pow(2).mean()
    boundary_loss = (net(x0) - 1.0).pow(2).mean()
    loss = physics_loss + boundary_loss

    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 500 == 0:
        with torch.no_grad():
            err = (net(torch.ones(1, 1)) - math.exp(-K)).abs().item()
        print(f"step {step:4d}  loss {loss.item():.5f}  |u(1) - exact| {err:.4f}")
