import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Autoencoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(3, 16, 4, 2, 1), nn.ReLU(), nn.Conv2d(16, 8, 4, 2, 1)
        )
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(8, 16, 4, 2, 1), nn.ReLU(), nn.ConvTranspose2d(16, 3, 4, 2, 1)
        )

    def forward(self, x):
        return self.decoder(self.encoder(x))

    @property
    def last_layer(self):
        return self.decoder[-1].weight


class PatchDiscriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, 16, 4, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(16, 1, 4, 1, 1)
        )

    def forward(self, x):
        return self.net(x)


def calculate_adaptive_weight(nll_loss, g_loss, last_layer):
    nll_grads = torch.autograd.grad(nll_loss, last_layer)[0]
    g_grads = torch.autograd.grad(g_loss, last_layer)[0]
    d_weight = torch.norm(nll_grads) / (torch.norm(g_grads) + 1e-4)
    return torch.clamp(d_weight, 0.0, 1e4).detach()


ae, disc = Autoencoder(), PatchDiscriminator()
opt_ae = torch.optim.Adam(ae.parameters(), lr=2e-4, betas=(0.5, 0.9))
opt_disc = torch.optim.Adam(disc.parameters(), lr=2e-4, betas=(0.5, 0.9))
images = torch.rand(64, 3, 32, 32) * 2 - 1

for step in range(4):
    x = images[torch.randint(0, 64, (8,))]
    # ---- autoencoder / generator ----
    xrec = ae(x)
    nll_loss = F.l1_loss(xrec, x)
    g_loss = -disc(xrec).mean()
    d_weight = calculate_adaptive_weight(nll_loss, g_loss, ae.last_layer)
    ae_loss = nll_loss + d_weight * g_loss
    opt_ae.zero_grad()
    ae_loss.backward()
    opt_ae.step()
    # ---- discriminator (hinge) ----
    logits_real = disc(x)
    logits_fake = disc(xrec.detach())
    d_loss = 0.5 * (F.relu(1 - logits_real).mean() + F.relu(1 + logits_fake).mean())
    opt_disc.zero_grad()
    d_loss.backward()
    opt_disc.step()
    print(
        f"step {step} nll {nll_loss.item():.4f} g {g_loss.item():.4f} d_weight {d_weight.item():.3f} d {d_loss.item():.4f}"
    )
