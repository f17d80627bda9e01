# source: written blind
#
# What it does: a small GAN on a 2-D ring of eight Gaussians. Each iteration draws one
# fake batch from the generator, updates the discriminator on real vs. fake, then
# updates the generator with the non-saturating loss on the same fake batch. Both
# optimizers' gradients are cleared once, at the top of the iteration, and an EMA copy
# of the generator is kept for evaluation.
# What the author intended: the discriminator loss should train only D (the fake batch
# is just data for D), and the generator loss should train G. As written, d_loss is
# back-propagated through `fake` into G, which frees G's part of the graph; the
# generator's g_loss.backward() then needs that same part and raises.
import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

Z_DIM, BATCH, STEPS = 8, 128, 6


def sample_real(n):
    k = torch.randint(0, 8, (n,))
    angle = k.float() * (2 * math.pi / 8)
    centers = torch.stack([torch.cos(angle), torch.sin(angle)], dim=1) * 2.0
    return centers + 0.05 * torch.randn(n, 2)


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(Z_DIM, 64),
            nn.LeakyReLU(0.2),
            nn.Linear(64, 64),
            nn.LeakyReLU(0.2),
            nn.Linear(64, 2),
        )

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(2, 64),
            nn.LeakyReLU(0.2),
            nn.Linear(64, 64),
            nn.LeakyReLU(0.2),
            nn.Linear(64, 1),
        )

    def forward(self, x):
        return self.net(x)


@torch.no_grad()
def update_ema(ema_model, model, decay=0.99):
    for pe, p in zip(ema_model.parameters(), model.parameters()):
        pe.mul_(decay).add_(p, alpha=1 - decay)


G, D = Generator(), Discriminator()
G_ema = copy.deepcopy(G).requires_grad_(False)
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
ones = torch.ones(BATCH, 1)
zeros = torch.zeros(BATCH, 1)

for step in range(STEPS):
    opt_d.zero_grad()
    opt_g.zero_grad()

    real = sample_real(BATCH)
    z = torch.randn(BATCH, Z_DIM)
    fake = G(z)

    # ---- discriminator update ----
    d_loss = F.binary_cross_entropy_with_logits(D(real), ones) + F.binary_cross_entropy_with_logits(
        D(fake), zeros
    )
    d_loss.backward()
    opt_d.step()

    # ---- generator update (same fake batch) ----
    g_loss = F.binary_cross_entropy_with_logits(D(fake), ones)
    g_loss.backward()
    opt_g.step()
    update_ema(G_ema, G)

    print(f"step {step}: d_loss={d_loss.item():.4f} g_loss={g_loss.item():.4f}")

with torch.no_grad():
    samples = G_ema(torch.randn(512, Z_DIM))
print("mean radius of EMA samples:", samples.norm(dim=1).mean().item())
