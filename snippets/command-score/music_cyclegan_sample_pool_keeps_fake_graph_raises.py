"""A PyTorch port of the symbolic-music CycleGAN: its Sampler (the pool
of earlier fakes the discriminators see) stores the generators' fakes
with their graph, so a discriminator loss backpropagates into the
generators' graph, which the generator losses' backward freed.

Source:
https://github.com/Asthestarsfalll/Symbolic-Music-Genre-Transfer-with-CycleGAN-for-pytorch/issues/4
A user reports that the six loss.backward(retain_graph=True) calls of
train.py make the memory explode as the steps go on, even at batch
size 1, and that without retain_graph the backward fails; the author
answers that the several backward passes need retain_graph. The user
wanted to train the CycleGAN, pool included, without retaining the
graph. The raising program keeps retain_graph=True on the first call
only, which the second needs (the two generator losses share the
cycle loss), and takes it off the others.
Kept from model.py: the reflect padding, Discriminator, Generator,
Sampler (max_length 50) and CycleGAN.forward in train mode (the
absolute Gaussian noise of sigma 0.01 added to every discriminator
input, the cycle loss of weight 10, the least-squares losses, the
D_A_all and D_B_all discriminators on the mixed data); from train.py
the six Adam optimizers (lr 0.002, betas (0.5, 0.999)), the zeroing,
g_loss and D_loss (gamma 1) as logged, the six backward calls in order
and the six steps, batch size 2. Replaced: the generator (encoder, ten
residual blocks, decoder) by two padded 7x7 convolutions with an
instance norm, the discriminators by two convolutions, the piano rolls
(1x64x84) by random 1x16x12 ones, the logging by one printed line.
"""

import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim

torch.manual_seed(0)
np.random.seed(0)


def kernel_initializer(w, mean=0.0, std=0.02):
    return nn.init.normal_(w, mean, std)


def padding(x, p=3):
    return F.pad(x, (p, p, p, p), mode="reflect")


def cycle_loss(real_a, cycle_a, real_b, cycle_b):
    return F.l1_loss(cycle_a, real_a) + F.l1_loss(cycle_b, real_b)


class Generator(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.conv = nn.Conv2d(1, dim, 7, 1, bias=False)
        self.norm = nn.InstanceNorm2d(dim, affine=True)
        self.output = nn.Conv2d(dim, 1, 7, 1, bias=False)

    def forward(self, x):
        x = F.relu(self.norm(self.conv(padding(x))))
        return torch.sigmoid(self.output(padding(x)))


class Discriminator(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.discriminator = nn.Sequential(
            nn.Conv2d(1, dim, 7, 2, padding=3, bias=False),
            nn.LeakyReLU(negative_slope=0.2),
            nn.Conv2d(dim, 1, 7, 1, padding=3, bias=False),
        )

    def forward(self, x):
        return self.discriminator(x)


class Sampler:
    def __init__(self, max_length=50):
        self.maxsize = max_length
        self.num = 0
        self.images = []

    def __call__(self, image):
        if self.maxsize <= 0:
            return image
        if self.num < self.maxsize:
            self.images.append(image)
            self.num += 1
            return image
        if np.random.rand() > 0.5:
            idx = int(np.random.rand() * self.maxsize)
            tmp1 = copy.copy(self.images[idx])[0]
            self.images[idx][0] = image[0]
            idx = int(np.random.rand() * self.maxsize)
            tmp2 = copy.copy(self.images[idx])[1]
            self.images[idx][1] = image[1]
            return [tmp1, tmp2]
        return image


class CycleGAN(nn.Module):
    def __init__(self, sigma=0.01, sample_size=50, lamb=10):
        super().__init__()
        self.G_A2B, self.G_B2A = Generator(), Generator()
        self.D_A, self.D_B = Discriminator(), Discriminator()
        self.D_A_all, self.D_B_all = Discriminator(), Discriminator()
        self.l2loss = nn.MSELoss(reduction="mean")
        self.sigma = sigma
        self.sampler = Sampler(sample_size)
        self.lamb = lamb

    def forward(self, real_A, real_B, x_m):
        fake_B = self.G_A2B(real_A)
        cycle_A = self.G_B2A(fake_B)
        fake_A = self.G_B2A(real_B)
        cycle_B = self.G_A2B(fake_A)

        [sample_fake_A, sample_fake_B] = self.sampler([fake_A, fake_B])
        noise = torch.ones_like(real_A)
        noise = torch.abs(kernel_initializer(noise, 0, self.sigma))

        DA_real = self.D_A(real_A + noise)
        DB_real = self.D_B(real_B + noise)
        DA_fake = self.D_A(fake_A + noise)
        DB_fake = self.D_B(fake_B + noise)
        DA_fake_sample = self.D_A(sample_fake_A + noise)
        DB_fake_sample = self.D_B(sample_fake_B + noise)
        DA_real_all = self.D_A_all(x_m + noise)
        DB_real_all = self.D_B_all(x_m + noise)
        DA_fake_all = self.D_A_all(sample_fake_A + noise)
        DB_fake_all = self.D_B_all(sample_fake_B + noise)

        l2, ones, zeros = self.l2loss, torch.ones_like, torch.zeros_like
        c_loss = self.lamb * cycle_loss(
            real_A, cycle_A, real_B, cycle_B
        )
        g_A2B_loss = l2(DB_fake, ones(DB_fake)) + c_loss
        g_B2A_loss = l2(DA_fake, ones(DA_fake)) + c_loss
        d_A_loss = (
            l2(DA_real, ones(DA_real))
            + l2(DA_fake_sample, zeros(DA_fake_sample))
        ) / 2
        d_B_loss = (
            l2(DB_real, ones(DB_real))
            + l2(DB_fake_sample, zeros(DB_fake_sample))
        ) / 2
        d_A_all_loss = (
            l2(DA_real_all, ones(DA_real_all))
            + l2(DA_fake_all, zeros(DA_fake_all))
        ) / 2
        d_B_all_loss = (
            l2(DB_real_all, ones(DB_real_all))
            + l2(DB_fake_all, zeros(DB_fake_all))
        ) / 2
        return (
            c_loss,
            g_A2B_loss,
            g_B2A_loss,
            d_A_loss,
            d_B_loss,
            d_A_all_loss,
            d_B_all_loss,
        )


model = CycleGAN()
nets = [
    model.G_A2B,
    model.G_B2A,
    model.D_A,
    model.D_B,
    model.D_A_all,
    model.D_B_all,
]
optimizers = [
    optim.Adam(net.parameters(), lr=0.002, betas=(0.5, 0.999))
    for net in nets
]
gamma, batch_size = 1, 2

for ite in range(1, 4):
    real_a = (torch.rand(batch_size, 1, 16, 12) > 0.8).float()
    real_b = (torch.rand(batch_size, 1, 16, 12) > 0.8).float()
    real_mixed = torch.maximum(real_a, real_b)
    for opt in optimizers:
        opt.zero_grad()

    (
        cycle_loss_,
        g_A2B_loss,
        g_B2A_loss,
        d_A_loss,
        d_B_loss,
        d_A_all_loss,
        d_B_all_loss,
    ) = model(real_a, real_b, real_mixed)
    g_loss = g_A2B_loss + g_B2A_loss - cycle_loss_
    D_loss = d_A_loss + d_B_loss + gamma * (d_A_all_loss + d_B_all_loss)
    print(
        f"iteration {ite}: g_loss {g_loss.item():.4f}, "
        f"D_loss {D_loss.item():.4f}"
    )

    g_A2B_loss.backward(retain_graph=True)
    g_B2A_loss.backward()
    d_A_loss.backward()  # raises: its pooled fake_A is the generator's
    d_B_loss.backward()
    d_A_all_loss.backward()
    d_B_all_loss.backward()

    for opt in optimizers:
        opt.step()
