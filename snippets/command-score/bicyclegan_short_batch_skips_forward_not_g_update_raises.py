"""BicycleGAN's training loop (junyanz/BicycleGAN, April 2018) on a
dataset whose last batch is shorter than the batch size.

Source: https://github.com/junyanz/BicycleGAN/pull/24
The user wanted to train BicycleGAN on a dataset of odd length; at
the end of the first epoch the short batch is skipped by forward()
("skip this point data_size = 1"), and update_G() raises.
Kept: set_input/forward (with the early return for a short batch),
update_D (returns when skipped), update_G (backward_EG with
retain_graph=True, then backward_G_alone's latent regression) and
the loop that checks is_skip() before update_D; changed: the nets
became small MLPs on random pairs, one discriminator, 7 pairs, and
Adam became SGD writing through .data, as optimizers did in PyTorch
0.3 (a step then bumped no version counter).
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
BATCH, NZ, DIM = 2, 3, 6


class SGD:
    """A step through .data, like torch.optim in PyTorch 0.3."""

    def __init__(self, params, lr):
        self.params, self.lr = list(params), lr

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    def step(self):
        for p in self.params:
            if p.grad is not None:
                p.data.add_(p.grad, alpha=-self.lr)


class BiCycleGAN:
    def __init__(self):
        self.netG = nn.Sequential(
            nn.Linear(DIM + NZ, 16),
            nn.ReLU(),
            nn.Linear(16, DIM),
            nn.Tanh(),
        )
        self.netE = nn.Linear(DIM, 2 * NZ)
        self.netD = nn.Sequential(
            nn.Linear(DIM, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1)
        )
        g_and_e = [*self.netG.parameters(), *self.netE.parameters()]
        self.optimizer_G = SGD(g_and_e, lr=0.01)
        self.optimizer_D = SGD(self.netD.parameters(), lr=0.01)
        self.skip = False

    def set_input(self, data):
        self.input_A, self.input_B = data

    def is_skip(self):
        return self.skip

    def forward(self):
        self.skip = self.input_A.size(0) < BATCH
        if self.skip:
            print(f"skip this point data_size = {self.input_A.size(0)}")
            return
        half = BATCH // 2
        self.real_A = self.input_A[:half]
        self.real_B = self.input_B[:half]
        self.mu, self.logvar = self.netE(self.real_B).chunk(2, dim=1)
        eps = torch.randn_like(self.mu)
        self.z_encoded = eps * (0.5 * self.logvar).exp() + self.mu
        self.z_random = torch.randn(half, NZ)
        self.fake_B_encoded = self.netG(
            torch.cat([self.real_A, self.z_encoded], 1)
        )
        self.fake_B_random = self.netG(
            torch.cat([self.real_A, self.z_random], 1)
        )
        self.mu2 = self.netE(self.fake_B_random).chunk(2, dim=1)[0]

    def update_D(self, data):
        self.set_input(data)
        self.forward()
        if self.is_skip():
            return
        self.optimizer_D.zero_grad()
        pred_fake = self.netD(self.fake_B_encoded.detach())
        pred_real = self.netD(self.input_B[BATCH // 2 :])
        loss_D = (F.softplus(pred_fake) + F.softplus(-pred_real)).mean()
        loss_D.backward()
        self.optimizer_D.step()

    def backward_EG(self):
        loss_G_GAN = F.softplus(-self.netD(self.fake_B_encoded)).mean()
        loss_G_GAN2 = F.softplus(-self.netD(self.fake_B_random)).mean()
        kl = 1 + self.logvar - self.mu.pow(2) - self.logvar.exp()
        self.loss_kl = -0.5 * kl.sum() * 0.01
        loss_G_L1 = F.l1_loss(self.fake_B_encoded, self.real_B) * 10
        self.loss_G = loss_G_GAN + loss_G_GAN2 + loss_G_L1
        self.loss_G = self.loss_G + self.loss_kl
        self.loss_G.backward(retain_graph=True)

    def backward_G_alone(self):
        self.loss_z_L1 = (self.mu2 - self.z_random).abs().mean() * 0.5
        self.loss_z_L1.backward()

    def update_G(self):
        self.optimizer_G.zero_grad()
        self.backward_EG()
        self.optimizer_G.step()
        self.optimizer_G.zero_grad()
        self.backward_G_alone()
        self.optimizer_G.step()


model = BiCycleGAN()
pairs = torch.rand(7, DIM) * 2 - 1, torch.rand(7, DIM) * 2 - 1
dataset = list(zip(pairs[0].split(BATCH), pairs[1].split(BATCH)))

for i, data in enumerate(dataset):
    if model.is_skip():
        continue
    model.update_D(data)
    model.update_G()
    print(f"batch {i}: G {model.loss_G.item():.4f}")
