# A signed distance field fitted to a circle with an eikonal term,
# (|grad f| - 1)^2 at points in space. The normals come as in
# nerfstudio's get_normals: sdf.sum().backward(retain_graph=True) and
# then pts.grad (retain_graph because the same forward's sdf is in
# the loss). pts.grad has no graph: the eikonal term is a constant to
# the optimizer.
# https://github.com/nerfstudio-project/nerfstudio/issues/1083
import math

import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 32),
                    nn.Tanh(), nn.Linear(32, 1))
params = list(net.parameters())
optimizer = torch.optim.Adam(params, lr=5e-3)
angle = torch.rand(12, 64) * 2 * math.pi
surf = 0.5 * torch.stack([angle.cos(), angle.sin()], -1)
space = torch.rand(12, 128, 2) * 2 - 1


def objective(surf_pts, space_pts):
    space_pts = space_pts.clone().requires_grad_(True)
    sdf = net(space_pts)
    normals = torch.autograd.grad(sdf.sum(), space_pts,
                                  create_graph=True)[0]
    eikonal = ((normals.norm(dim=-1) - 1) ** 2).mean()
    off = torch.exp(-50 * sdf.abs()).mean()
    return net(surf_pts).abs().mean() + 0.1 * off + 0.5 * eikonal


def rel(a, b):
    a = torch.cat([t.flatten() for t in a])
    b = torch.cat([t.flatten() for t in b])
    return ((a - b).norm() / b.norm()).item()


for step in range(12):
    pts = space[step].clone().requires_grad_(True)
    sdf = net(pts)
    sdf.sum().backward(retain_graph=True)
    normals = pts.grad
    eikonal = ((normals.norm(dim=-1) - 1) ** 2).mean()
    off = torch.exp(-50 * sdf.abs()).mean()
    loss = net(surf[step]).abs().mean() + 0.1 * off + 0.5 * eikonal

    want = torch.autograd.grad(objective(surf[step], space[step]),
                               params)
    optimizer.zero_grad()
    loss.backward()
    used = [p.grad for p in params]
    print(f"step {step}: loss {loss.item():.4f}, eikonal "
          f"{eikonal.item():.4f}; grad vs the objective's "
          f"{rel(used, want):.3f} (relative)")
    optimizer.step()
