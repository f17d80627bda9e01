# PINN for -u'' = sin(x) on (0, 1) with a Dirichlet condition u(0) = 0 and a Neumann condition u'(1) = cos(1).
import math

import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
net = nn.Sequential(nn.Linear(1, 20), nn.Tanh(), nn.Linear(20, 20), nn.Tanh(), nn.Linear(20, 1))
optimizer = torch.optim.Adam(net.parameters(), lr=2e-2)

x_col = torch.linspace(0, 1, 30).view(-1, 1).requires_grad_(True)
x_bc = torch.tensor([[0.0], [1.0]], requires_grad=True)
neumann_value = math.cos(1.0)

for step in range(60):
    u = net(x_col)
    u_x = torch.autograd.grad(u, x_col, torch.ones_like(u), create_graph=True)[0]
    u_xx = torch.autograd.grad(u_x, x_col, torch.ones_like(u_x), create_graph=True)[0]
    pde_loss = torch.mean((-u_xx - torch.sin(x_col)) ** 2)

    u_bc = net(x_bc)
    du_bc = torch.autograd.grad(u_bc, x_bc, torch.ones_like(u_bc), retain_graph=True)[0]
    dirichlet_loss = u_bc[0, 0] ** 2
    neumann_loss = (du_bc[1, 0] - neumann_value) ** 2

    loss = pde_loss + dirichlet_loss + neumann_loss
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 10 == 0 or step == 59:
        print(f"step {step} pde {pde_loss.item():.5f} dirichlet {dirichlet_loss.item():.5f} neumann {neumann_loss.item():.5f}")

with torch.no_grad():
    xs = torch.linspace(0, 1, 11).view(-1, 1)
    print(f"max |u - sin(x)| = {(net(xs) - torch.sin(xs)).abs().max().item():.4f}")
