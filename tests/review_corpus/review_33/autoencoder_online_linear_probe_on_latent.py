# source: written blind
#
# What it does: trains an autoencoder (encoder + decoder, reconstruction MSE) on
# synthetic 3-class data and, as is common in self-supervised training loops, an
# "online linear probe": a linear classifier on the latent code, trained at the same
# time with its own optimizer, whose accuracy is logged to monitor representation
# quality. One training_step() computes both losses, back-propagates both, then steps
# both optimizers.
# What the author intended: the encoder/decoder are trained only by the reconstruction
# loss (the labels must not leak into the representation, otherwise the probe accuracy
# is meaningless); the probe is trained only by its cross-entropy on the latent codes.
# The probe loss is back-propagated through the latent z into the encoder's graph,
# which the reconstruction backward has already freed, so it raises.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

IN_DIM, LATENT, N_CLASSES, BATCH, STEPS = 20, 4, 3, 64, 6

centers = torch.randn(N_CLASSES, IN_DIM) * 2


def sample_batch(n):
    y = torch.randint(0, N_CLASSES, (n,))
    x = centers[y] + torch.randn(n, IN_DIM)
    return x, y


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(IN_DIM, 64), nn.ReLU(), nn.Linear(64, LATENT))
        self.decoder = nn.Sequential(nn.Linear(LATENT, 64), nn.ReLU(), nn.Linear(64, IN_DIM))

    def forward(self, x):
        z = self.encoder(x)
        return z, self.decoder(z)


class OnlineProbe(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(LATENT, N_CLASSES)

    def forward(self, z):
        return self.linear(z)


ae, probe = AutoEncoder(), OnlineProbe()
opt_ae = torch.optim.Adam(ae.parameters(), lr=1e-3)
opt_probe = torch.optim.SGD(probe.parameters(), lr=0.1)


def training_step(x, y):
    opt_ae.zero_grad()
    opt_probe.zero_grad()

    z, recon = ae(x)
    rec_loss = F.mse_loss(recon, x)
    rec_loss.backward()

    logits = probe(z)
    probe_loss = F.cross_entropy(logits, y)
    probe_loss.backward()

    opt_ae.step()
    opt_probe.step()
    acc = (logits.argmax(1) == y).float().mean().item()
    return rec_loss.item(), probe_loss.item(), acc


for step in range(STEPS):
    x, y = sample_batch(BATCH)
    rec, pl, acc = training_step(x, y)
    print(f"step {step}: recon={rec:.4f} probe_ce={pl:.4f} probe_acc={acc:.3f}")
