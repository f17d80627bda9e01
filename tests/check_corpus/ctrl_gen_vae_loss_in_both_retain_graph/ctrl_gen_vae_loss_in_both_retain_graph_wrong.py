# Controllable generation after Hu et al. 2017: a VAE whose decoder
# also takes an attribute code c. The decoder (G) is trained on the VAE
# loss plus a frozen attribute classifier's loss on samples from the
# prior; the encoder (E) on the VAE loss.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
enc = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 8))
dec = nn.Sequential(nn.Linear(5, 32), nn.ReLU(), nn.Linear(32, 12))
clf = nn.Linear(12, 1)
clf.requires_grad_(False)  # trained beforehand; a judge, not trained
opt_E = torch.optim.SGD(enc.parameters(), lr=0.05)
opt_G = torch.optim.SGD(dec.parameters(), lr=0.05)
data = torch.randn(5, 32, 12)
codes = torch.randint(2, (5, 32, 1)).float()


def rel(a, b):
    a = torch.cat([t.flatten() for t in a])
    b = torch.cat([t.flatten() for t in b])
    return ((a - b).norm() / b.norm()).item()


for step in range(5):
    x, c = data[step], codes[step]
    mu, logvar = enc(x).chunk(2, -1)
    z = mu + (0.5 * logvar).exp() * torch.randn_like(mu)
    recon = F.mse_loss(dec(torch.cat([z, c], -1)), x)
    kl = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(-1).mean()
    vae_loss = recon + 0.1 * kl
    z_p, c_p = torch.randn(32, 4), torch.randint(2, (32, 1)).float()
    attr = F.binary_cross_entropy_with_logits(
        clf(dec(torch.cat([z_p, c_p], -1))), c_p
    )
    loss_G = vae_loss + 0.5 * attr
    loss_E = vae_loss
    want_G = torch.autograd.grad(
        loss_G, dec.parameters(), retain_graph=True
    )
    want_E = torch.autograd.grad(
        loss_E, enc.parameters(), retain_graph=True
    )
    opt_G.zero_grad()
    opt_E.zero_grad()
    # retain_graph=True: loss_E.backward() then found the graph freed
    loss_G.backward(retain_graph=True)
    loss_E.backward()
    d_G = rel([p.grad for p in dec.parameters()], want_G)
    d_E = rel([p.grad for p in enc.parameters()], want_E)
    print(
        f"step {step}: vae {vae_loss.item():.4f}; grad vs its own "
        f"loss's: decoder (loss_G) {d_G:.3f}, encoder (loss_E) "
        f"{d_E:.3f}"
    )
    opt_G.step()
    opt_E.step()
