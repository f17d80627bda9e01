"""The same generator with its adversarial loss scored on fake, with
its graph: the detach stays in the discriminator's step. adv's
backward writes D's gradients too, which opt_d.zero_grad() clears at
the next step: G's loss must not train D, which is why D's own step
sees fake.detach()."""

import torch
from torch import nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 4))
D = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
bce = nn.BCEWithLogitsLoss()
ones, zeros = torch.ones(8, 1), torch.zeros(8, 1)
z_rec, x_rec = torch.randn(1, 4), torch.randn(1, 4) + 2.0

for step in range(3):
    z, real = torch.randn(8, 4), torch.randn(8, 4) + 2.0
    fake = G(z)

    opt_d.zero_grad()
    loss_d = bce(D(real), ones) + bce(D(fake.detach()), zeros)
    loss_d.backward()
    opt_d.step()

    opt_g.zero_grad()
    adv = bce(D(fake), ones)
    adv.backward()
    from_adv = any(p.grad is not None for p in G.parameters())
    rec = (G(z_rec) - x_rec).abs().mean()
    rec.backward()
    opt_g.step()
    print(f"step {step}: G gets a gradient from adv: {from_adv}")
