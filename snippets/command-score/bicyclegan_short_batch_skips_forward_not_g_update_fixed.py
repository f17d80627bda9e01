"""BicycleGAN's training loop with junyanz's fix (commit a2f1f59, "bug
fix (is_skip)"): the loop sets the input and skips a short batch
before update_D and update_G.

Source: https://github.com/junyanz/BicycleGAN/pull/24
The user wanted to train BicycleGAN on a dataset of odd length, the
short last batch skipped. is_skip() now reads the batch just set, as
in the fix, and forward() no longer returns early; update_G takes
both backward passes before one step (netE frozen for the latent
regression), as upstream has since commits 6f0eec8 and 8dc078b
(2020): stepping between them left the second one a graph whose
saved weights the step had written. Changed: the nets
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

    def set_input(self, data):
        self.input_A, self.input_B = data

    def is_skip(self):
        is_skip = self.input_A.size(0) < BATCH
        if is_skip:
            print(f"skip this point data_size = {self.input_A.size(0)}")
        return is_skip

    def forward(self):
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

    def update_D(self):
        self.forward()
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
        # both backward passes before the step, netE frozen for the
        # latent regression, as upstream's update_G_and_E since 2020
        self.optimizer_G.zero_grad()
        self.backward_EG()
        self.netE.requires_grad_(False)
        self.backward_G_alone()
        self.netE.requires_grad_(True)
        self.optimizer_G.step()


model = BiCycleGAN()
pairs = torch.rand(7, DIM) * 2 - 1, torch.rand(7, DIM) * 2 - 1
dataset = list(zip(pairs[0].split(BATCH), pairs[1].split(BATCH)))

for i, data in enumerate(dataset):
    model.set_input(data)
    if model.is_skip():
        continue
    model.update_D()
    with torch.no_grad():  # G's outputs: this batch's, from G as it is
        z = torch.cat([model.real_A, model.z_encoded], 1)
        again = model.netG(z)
        fresh = torch.equal(model.real_A, data[0][: BATCH // 2])
        fresh = fresh and torch.allclose(model.fake_B_encoded, again)
    model.update_G()
    print(
        f"batch {i}: G {model.loss_G.item():.4f}, "
        f"G updated on this batch's outputs: {fresh}"
    )
