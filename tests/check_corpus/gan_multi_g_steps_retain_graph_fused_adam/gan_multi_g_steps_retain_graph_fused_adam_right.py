# GAN where the generator gets g_update_factor updates per discriminator update.
import torch
import torch.nn as nn

torch.manual_seed(0)
LATENT, DIM, BSZ = 8, 16, 32
g_update_factor = 2

netG = nn.Sequential(nn.Linear(LATENT, 32), nn.ReLU(), nn.Linear(32, DIM))
netD = nn.Sequential(nn.Linear(DIM, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
bce_loss = nn.BCEWithLogitsLoss()
optG = torch.optim.Adam(netG.parameters(), lr=2e-3, betas=(0.5, 0.999), fused=True)
optD = torch.optim.Adam(netD.parameters(), lr=2e-3, betas=(0.5, 0.999), fused=True)

data = torch.randn(96, DIM) * 0.5 + 1.0
data_stream = [data[i:i + BSZ] for i in range(0, len(data), BSZ)]

for epoch in range(2):
    for batch_id, real_batch in enumerate(data_stream):
        bsz = real_batch.shape[0]
        for _ in range(g_update_factor):
            z = torch.randn(bsz, LATENT)
            fake_batch = netG(z)
            gen_scores = netD(fake_batch).view(-1)
            g_loss = bce_loss(gen_scores, torch.ones_like(gen_scores))
            g_loss.backward()
            optG.step()
            netG.zero_grad()

        netD.zero_grad()
        real_scores = netD(real_batch).view(-1)
        fake_scores = netD(fake_batch.detach()).view(-1)
        d_loss = bce_loss(real_scores, torch.ones_like(real_scores)) + bce_loss(fake_scores, torch.zeros_like(fake_scores))
        d_loss.backward()
        optD.step()
        print(f"epoch {epoch} batch {batch_id} g_loss {g_loss.item():.4f} d_loss {d_loss.item():.4f}")
