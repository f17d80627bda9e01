"""The symbolic-music CycleGAN's pool of fakes, fixed: the Sampler is
given the fakes detached, as the TensorFlow original feeds its sampled
fakes back through a placeholder, so the discriminator losses stop at
the pooled fakes and train the discriminators only, each with its own
graph, and no iteration keeps a graph alive in the pool.

Source:
https://github.com/Asthestarsfalll/Symbolic-Music-Genre-Transfer-with-CycleGAN-for-pytorch/issues/4
The raising program with fake_A.detach() and fake_B.detach() passed
to the Sampler; the first backward keeps retain_graph=True, which the
second generator loss needs within the iteration (the two share the
cycle loss). Sixty iterations, so that the pool (50) fills and starts
handing back older fakes; at each one, the generators' gradients
after the six backward calls are compared with those of the two
generator losses made again from scratch on copies of the networks
taken at the top of the iteration, with the same noise.
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

        [sample_fake_A, sample_fake_B] = self.sampler(
            [fake_A.detach(), fake_B.detach()]
        )
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


def reference_grads(nets0, real_a, real_b, noise):
    """The two generator losses, made again from scratch on copies."""
    g_a2b, g_b2a, d_a, d_b = nets0
    fake_b, fake_a = g_a2b(real_a), g_b2a(real_b)
    c_loss = 10 * cycle_loss(
        real_a, g_b2a(fake_b), real_b, g_a2b(fake_a)
    )
    db_fake, da_fake = d_b(fake_b + noise), d_a(fake_a + noise)
    g_a2b_loss = F.mse_loss(db_fake, torch.ones_like(db_fake)) + c_loss
    g_b2a_loss = F.mse_loss(da_fake, torch.ones_like(da_fake)) + c_loss
    params = [*g_a2b.parameters(), *g_b2a.parameters()]
    return torch.autograd.grad(g_a2b_loss + g_b2a_loss, params)


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
PRINTED = (1, 2, 3, 51, 55, 60)

for ite in range(1, 61):
    real_a = (torch.rand(batch_size, 1, 16, 12) > 0.8).float()
    real_b = (torch.rand(batch_size, 1, 16, 12) > 0.8).float()
    real_mixed = torch.maximum(real_a, real_b)
    for opt in optimizers:
        opt.zero_grad()
    nets0 = [copy.deepcopy(net) for net in nets[:4]]
    rng = torch.get_rng_state()

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

    g_A2B_loss.backward(retain_graph=True)
    g_B2A_loss.backward()
    d_A_loss.backward()
    d_B_loss.backward()
    d_A_all_loss.backward()
    d_B_all_loss.backward()

    after = torch.get_rng_state()
    torch.set_rng_state(rng)
    noise = torch.abs(
        kernel_initializer(torch.ones_like(real_a), 0, 0.01)
    )
    torch.set_rng_state(after)
    ref = reference_grads(nets0, real_a, real_b, noise)
    got = [p.grad for net in nets[:2] for p in net.parameters()]
    same = all(
        torch.allclose(g, r, atol=1e-6) for g, r in zip(got, ref)
    )
    kept = sum(
        t.grad_fn is not None
        for pair in model.sampler.images
        for t in pair
    )
    if ite in PRINTED:
        print(
            f"iteration {ite}: generator grads = the generator losses "
            f"made again from scratch: {same}, fakes kept in the pool "
            f"with a graph: {kept}"
        )

    for opt in optimizers:
        opt.step()
