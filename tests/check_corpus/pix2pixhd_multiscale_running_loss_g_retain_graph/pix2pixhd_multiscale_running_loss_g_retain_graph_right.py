# pix2pixHD's generator loss (NVIDIA/pix2pixHD, models/pix2pixHD_model.py):
# num_D discriminators look at the image at successively halved
# scales; for each one the generator gets an LSGAN term on its last
# output and a feature-matching term on its intermediate features
# (the real image's detached). Reduced: 1-D signals for images. Each
# scale's terms are backpropagated as soon as they are computed, to
# free that discriminator's graph early.
import copy

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
N, LEN, num_D, n_layers = 8, 32, 3, 2
feat_weights, D_weights, lambda_feat = 4.0 / (n_layers + 1), 1.0 / num_D, 10.0


class NLayerD(nn.Module):
    def __init__(self, length):
        super().__init__()
        self.layers = nn.ModuleList([
            nn.Sequential(nn.Linear(length, 16), nn.LeakyReLU(0.2)),
            nn.Sequential(nn.Linear(16, 16), nn.LeakyReLU(0.2)),
            nn.Linear(16, 1),
        ])

    def forward(self, x):
        out = [x]
        for layer in self.layers:
            out.append(layer(out[-1]))
        return out[1:]


def downsample(x, i):
    return F.avg_pool1d(x[:, None], 2 ** i)[:, 0] if i else x


netG = nn.Sequential(nn.Linear(LEN, 64), nn.ReLU(), nn.Linear(64, LEN))
netDs = nn.ModuleList(NLayerD(LEN // 2 ** i) for i in range(num_D))
optimizer_G = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizer_D = torch.optim.Adam(netDs.parameters(), lr=2e-4, betas=(0.5, 0.999))
labels = torch.randn(4, N, LEN)
reals = torch.sin(labels.cumsum(-1) / 4)


def scale_terms(Ds, i, fake, real):
    pred_fake = Ds[i](downsample(fake, i))
    pred_real = Ds[i](downsample(real, i))
    loss = F.mse_loss(pred_fake[-1], torch.ones_like(pred_fake[-1]))
    for j in range(n_layers):
        loss = loss + D_weights * feat_weights * lambda_feat * F.l1_loss(
            pred_fake[j], pred_real[j].detach())
    return loss


def flat(ts):
    return torch.cat([t.reshape(-1) for t in ts])


for step in range(4):
    label, real = labels[step], reals[step]
    G_ref, Ds_ref = copy.deepcopy(netG), copy.deepcopy(netDs)  # measurement
    fake = netG(label)

    # update G
    optimizer_G.zero_grad()
    loss_G = 0.0  # for the log
    for i in range(num_D):
        loss_i = scale_terms(netDs, i, fake, real)
        # netG's graph is shared by the scales: kept for the next one
        loss_i.backward(retain_graph=True)
        loss_G += loss_i.item()
    got = flat([p.grad for p in netG.parameters()])
    optimizer_G.step()

    # update D
    optimizer_D.zero_grad()
    loss_D = 0.0
    for i in range(num_D):
        p_fake = netDs[i](downsample(fake.detach(), i))[-1]
        p_real = netDs[i](downsample(real, i))[-1]
        loss_D = loss_D + 0.5 * (F.mse_loss(p_fake, torch.zeros_like(p_fake))
                                 + F.mse_loss(p_real, torch.ones_like(p_real)))
    loss_D.backward()
    optimizer_D.step()

    # measured on copies of this step's weights: each scale's gradient
    rp = list(G_ref.parameters())
    per_scale = [flat(torch.autograd.grad(
        scale_terms(Ds_ref, i, G_ref(label), real), rp))
        for i in range(num_D)]
    once = sum(per_scale)
    by_count = sum((num_D - i) * g for i, g in enumerate(per_scale))
    print(f"step {step}: netG's grad is the G loss's: "
          f"{torch.allclose(got, once, rtol=1e-4, atol=1e-7)}; is scale 0's "
          f"x3 + scale 1's x2 + scale 2's x1: "
          f"{torch.allclose(got, by_count, rtol=1e-4, atol=1e-7)}")
