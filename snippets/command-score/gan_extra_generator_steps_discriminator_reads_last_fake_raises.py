"""A GAN whose generator takes several steps per batch before the
discriminator's one, the discriminator scoring the generator loop's
last fake batch.

Source: https://pytroubles.com/ru/posts/id2658-gan-v-pytorch-ispravljaem-oshibku-backward-cherez-detach
The user wanted n generator updates for every discriminator update
(n > m) on flattened 28x28 images, with binary cross-entropy and
Adam for both models: for each batch, n generator steps on a new
noise batch each, then the discriminator's step on the real batch
and the fake batch.
Kept: the generator loop as posted (noise, fake_batch = netG(z), the
discriminator's scores, BCE against ones, backward, optG.step(),
netG.zero_grad()) and the discriminator's step on the real batch and
on fake_batch, the last batch the generator loop made; changed:
MNIST became random data in [-1, 1] of 16 features, the models small
MLPs, two generator updates and one discriminator update per batch,
two batches; the discriminator's step, described but cut short in
the post, is written the usual way (zero_grad, BCE on the real and
the fake scores, one backward, optD.step()).
"""

import torch
from torch import nn

torch.manual_seed(0)
LATENT, PIXELS, BATCH = 8, 16, 32
G_UPDATE_FACTOR, D_UPDATE_FACTOR = 2, 1

netG = nn.Sequential(
    nn.Linear(LATENT, 32), nn.ReLU(), nn.Linear(32, PIXELS), nn.Tanh()
)
netD = nn.Sequential(
    nn.Linear(PIXELS, 32),
    nn.LeakyReLU(0.2),
    nn.Linear(32, 1),
    nn.Sigmoid(),
)
optG = torch.optim.Adam(netG.parameters(), lr=2e-4)
optD = torch.optim.Adam(netD.parameters(), lr=2e-4)
bce_loss = nn.BCELoss()
data_stream = [torch.rand(BATCH, PIXELS) * 2 - 1 for _ in range(2)]

for batch_id, real_batch in enumerate(data_stream):
    bsz = real_batch.shape[0]
    # generator updates (n times)
    for _ in range(G_UPDATE_FACTOR):
        z = torch.randn(bsz, LATENT)
        fake_batch = netG(z)
        gen_scores = netD(fake_batch).view(-1)
        g_loss = bce_loss(gen_scores, torch.ones_like(gen_scores))
        g_loss.backward()
        optG.step()
        netG.zero_grad()
        print(
            f"batch {batch_id}: generator step, G {g_loss.item():.4f}"
        )
    # discriminator updates (m times)
    for _ in range(D_UPDATE_FACTOR):
        netD.zero_grad()
        real_scores = netD(real_batch).view(-1)
        fake_scores = netD(fake_batch).view(-1)
        d_loss = bce_loss(
            real_scores, torch.ones_like(real_scores)
        ) + bce_loss(fake_scores, torch.zeros_like(fake_scores))
        d_loss.backward()
        optD.step()
    print(f"batch {batch_id}: D {d_loss.item():.4f}")
