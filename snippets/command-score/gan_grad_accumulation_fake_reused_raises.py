import torch
from torch import nn

torch.manual_seed(0)

G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
D = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
bce = nn.BCEWithLogitsLoss()
accum_steps = 2
batches = [torch.randn(8, 8) + 2 for _ in range(4)]
ones, zeros = torch.ones(8, 1), torch.zeros(8, 1)

for i, real in enumerate(batches):
    fake = G(torch.randn(8, 4))
    # discriminator: real vs fake
    loss_d = (bce(D(real), ones) + bce(D(fake), zeros)) / accum_steps
    loss_d.backward()
    # generator: fool the (frozen) discriminator
    D.requires_grad_(False)
    loss_g = bce(D(fake), ones) / accum_steps
    print(
        f"micro-batch {i}: loss_d {loss_d.item():.3f}, "
        f"loss_g {loss_g.item():.3f}"
    )
    loss_g.backward()
    D.requires_grad_(True)
    if (i + 1) % accum_steps == 0:
        opt_d.step()
        opt_g.step()
        opt_d.zero_grad()
        opt_g.zero_grad()
