"""A GAN step made to run with retain_graph=True on the discriminator's
loss: both optimizers zeroed at the top, D's loss scored on the fake
with its graph, so its backward writes into G's .grad too, and
opt_g.step() applies that beside G's own gradient."""

import torch
from torch import nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 4))
D = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
bce = nn.BCEWithLogitsLoss()
ones, zeros = torch.ones(8, 1), torch.zeros(8, 1)

for step in range(4):
    opt_d.zero_grad()
    opt_g.zero_grad()
    z, real = torch.randn(8, 4), torch.randn(8, 4) + 2.0
    fake = G(z)

    loss_d = bce(D(real), ones) + bce(D(fake), zeros)
    loss_d.backward(retain_graph=True)
    opt_d.step()
    # What G holds before its own loss's backward: loss_d's part.
    held = [p.grad for p in G.parameters() if p.grad is not None]
    part = sum(g.norm() ** 2 for g in held) ** 0.5 if held else 0.0

    loss_g = bce(D(fake), ones)
    loss_g.backward()
    opt_g.step()
    print(
        f"step {step}: opt_g steps with loss_d's gradient: {part:.4f}"
    )
