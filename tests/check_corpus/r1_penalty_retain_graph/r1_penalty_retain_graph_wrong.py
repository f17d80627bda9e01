# A small GAN whose discriminator gets StyleGAN2's R1 penalty on
# real samples.
import torch
from torch import nn

torch.manual_seed(0)

G = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 2))
D = nn.Sequential(
    nn.Linear(2, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1)
)
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.0, 0.99))
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.0, 0.99))
gamma = 10.0
softplus = nn.functional.softplus

for step in range(4):
    real = torch.randn(32, 2) * 0.5 + 1.0
    fake = G(torch.randn(32, 4))
    real.requires_grad_(True)
    d_real = D(real)
    (grad_real,) = torch.autograd.grad(
        d_real.sum(), real, retain_graph=True
    )
    r1 = grad_real.pow(2).sum(1).mean()
    d_fake = D(fake.detach())
    d_loss = softplus(d_fake).mean() + softplus(-d_real).mean()
    opt_d.zero_grad()
    (d_loss + gamma / 2 * r1).backward()
    opt_d.step()
    g_loss = softplus(-D(fake)).mean()
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
    print(f"step {step}: d {d_loss.item():.3f}, r1 {r1.item():.3f}")
