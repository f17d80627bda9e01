import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class FactorVAE(nn.Module):
    def __init__(self, in_dim=64, latent_dim=6, hidden=128):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, 2 * latent_dim))
        self.decoder = nn.Sequential(nn.Linear(latent_dim, hidden), nn.ReLU(), nn.Linear(hidden, in_dim))

    def forward(self, x):
        mu, log_var = self.encoder(x).chunk(2, dim=-1)
        z = mu + torch.randn_like(mu) * (0.5 * log_var).exp()
        return self.decoder(z), mu, log_var, z


def permute_latent(z):
    # shuffle each latent dimension independently across the batch
    return torch.stack([col[torch.randperm(z.size(0))] for col in z.t()], dim=1)


latent_dim = 6
vae = FactorVAE(latent_dim=latent_dim)
discriminator = nn.Sequential(
    nn.Linear(latent_dim, 256), nn.LeakyReLU(0.2), nn.Linear(256, 256), nn.LeakyReLU(0.2), nn.Linear(256, 2)
)
opt_vae = torch.optim.Adam(vae.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(discriminator.parameters(), lr=1e-4, betas=(0.5, 0.9))
gamma = 6.0
data = torch.rand(512, 64)

for step in range(5):
    x = data[torch.randint(0, 512, (64,))]
    ones = torch.ones(x.size(0), dtype=torch.long)
    zeros = torch.zeros(x.size(0), dtype=torch.long)

    # ---- VAE update ----
    recon, mu, log_var, z = vae(x)
    recons_loss = F.mse_loss(recon, x)
    kld = torch.mean(-0.5 * torch.sum(1 + log_var - mu ** 2 - log_var.exp(), dim=1))
    d_z = discriminator(z)
    vae_tc_loss = (d_z[:, 0] - d_z[:, 1]).mean()
    vae_loss = recons_loss + kld + gamma * vae_tc_loss
    opt_vae.zero_grad()
    vae_loss.backward()
    opt_vae.step()

    # ---- discriminator update ----
    z_perm = permute_latent(z.detach())
    d_z_perm = discriminator(z_perm)
    d_tc_loss = 0.5 * (F.cross_entropy(d_z.detach(), zeros) + F.cross_entropy(d_z_perm, ones))
    opt_d.zero_grad()
    d_tc_loss.backward()
    opt_d.step()
    print(f"step {step} vae {vae_loss.item():.4f} tc {vae_tc_loss.item():.4f} d {d_tc_loss.item():.4f}")
