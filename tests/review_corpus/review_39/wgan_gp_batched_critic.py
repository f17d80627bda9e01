import torch
import torch.nn as nn

torch.manual_seed(0)

Z_DIM, X_DIM, BATCH = 8, 2, 128
N_CRITIC, GP_WEIGHT = 5, 10.0


def sample_real(n):
    angles = torch.rand(n) * 2 * torch.pi
    radius = 2.0 + 0.1 * torch.randn(n)
    return torch.stack([radius * angles.cos(), radius * angles.sin()], 1)


G = nn.Sequential(
    nn.Linear(Z_DIM, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, X_DIM)
)
D = nn.Sequential(
    nn.Linear(X_DIM, 64), nn.LeakyReLU(0.2), nn.Linear(64, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1)
)
g_opt = torch.optim.Adam(G.parameters(), lr=1e-4, betas=(0.5, 0.9))
d_opt = torch.optim.Adam(D.parameters(), lr=1e-4, betas=(0.5, 0.9))

for step in range(200):
    for _ in range(N_CRITIC):
        real = sample_real(BATCH)
        fake = G(torch.randn(BATCH, Z_DIM)).detach()
        alpha = torch.rand(BATCH, 1)
        interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)

        scores = D(torch.cat([real, fake, interp]))
        s_real, s_fake, s_interp = scores.split(BATCH)

        (grad_interp,) = torch.autograd.grad(s_interp.sum(), interp)
        gp = ((grad_interp.norm(2, dim=1) - 1) ** 2).mean()

        d_loss = s_fake.mean() - s_real.mean() + GP_WEIGHT * gp
        d_opt.zero_grad()
        d_loss.backward()
        d_opt.step()

    g_loss = -D(G(torch.randn(BATCH, Z_DIM))).mean()
    g_opt.zero_grad()
    g_loss.backward()
    g_opt.step()
    if step % 50 == 0:
        print(
            f"step {step:3d}  d_loss {d_loss.item():.4f}  g_loss {g_loss.item():.4f}  gp {gp.item():.4f}"
        )
