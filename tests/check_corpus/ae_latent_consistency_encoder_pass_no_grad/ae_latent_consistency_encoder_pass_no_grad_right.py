# Autoencoder with a latent-consistency term: the decoder should produce x_hat whose
# encoding matches the original code, i.e. E(G(E(x))) ~ E(x).
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call

torch.manual_seed(0)
D, Z, B = 16, 4, 32
E = nn.Sequential(nn.Linear(D, 32), nn.ReLU(), nn.Linear(32, Z))
G = nn.Sequential(nn.Linear(Z, 32), nn.ReLU(), nn.Linear(32, D))
optimizer = torch.optim.Adam(list(E.parameters()) + list(G.parameters()), lr=1e-3)
LAMBDA = 1.0

data = torch.randn(128, Z) @ torch.randn(Z, D)
for step in range(8):
    x = data[torch.randint(0, 128, (B,))]
    z = E(x)
    x_hat = G(z)
    rec_loss = F.mse_loss(x_hat, x)
    frozen_E = {k: v.detach() for k, v in E.named_parameters()}
    z_hat = functional_call(E, frozen_E, (x_hat,))
    lat_loss = F.mse_loss(z_hat, z.detach())
    loss = rec_loss + LAMBDA * lat_loss
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} rec {rec_loss.item():.4f} lat {lat_loss.item():.4f}")
