"""disentangling-vae's FactorVAE loss as merged for PyTorch 1.5
(f8f64d8): vae_loss.backward(retain_graph=True), then the
discriminator's backward through d_z, then both optimizers' steps.

Source: https://github.com/YannDubs/disentangling-vae/issues/62 and
https://github.com/YannDubs/disentangling-vae/issues/77. It runs: no
step comes between the two backward calls any more. But the
discriminator's backward goes on through d_z into the encoder, and
the VAE optimizer's step, now after it, applies that gradient too:
the encoder is trained on the VAE loss plus the discriminator's
cross-entropy, which pulls its samples to be told apart from the
permuted ones, against the total-correlation term. The check compares
the encoder's gradient with the VAE loss's own (made again from
scratch on a copy from before the step, the same random draws).
"""

import copy

import torch
from torch import nn, optim
from torch.nn import functional as F

torch.manual_seed(0)


class EncoderBurgess(nn.Module):
    def __init__(self, img_size, latent_dim=10):
        super().__init__()
        hid_channels, kernel_size, hidden_dim = 32, 4, 256
        self.latent_dim = latent_dim
        self.reshape = (hid_channels, kernel_size, kernel_size)
        cnn_kwargs = dict(stride=2, padding=1)
        self.conv1 = nn.Conv2d(
            img_size[0], hid_channels, kernel_size, **cnn_kwargs
        )
        self.conv2 = nn.Conv2d(
            hid_channels, hid_channels, kernel_size, **cnn_kwargs
        )
        self.conv3 = nn.Conv2d(
            hid_channels, hid_channels, kernel_size, **cnn_kwargs
        )
        self.lin1 = nn.Linear(hid_channels * 4 * 4, hidden_dim)
        self.lin2 = nn.Linear(hidden_dim, hidden_dim)
        self.mu_logvar_gen = nn.Linear(hidden_dim, latent_dim * 2)

    def forward(self, x):
        batch_size = x.size(0)
        x = torch.relu(self.conv1(x))
        x = torch.relu(self.conv2(x))
        x = torch.relu(self.conv3(x))
        x = x.view((batch_size, -1))
        x = torch.relu(self.lin1(x))
        x = torch.relu(self.lin2(x))
        mu_logvar = self.mu_logvar_gen(x)
        mu, logvar = mu_logvar.view(-1, self.latent_dim, 2).unbind(-1)
        return mu, logvar


class DecoderBurgess(nn.Module):
    def __init__(self, img_size, latent_dim=10):
        super().__init__()
        hid_channels, kernel_size, hidden_dim = 32, 4, 256
        self.reshape = (hid_channels, kernel_size, kernel_size)
        cnn_kwargs = dict(stride=2, padding=1)
        self.lin1 = nn.Linear(latent_dim, hidden_dim)
        self.lin2 = nn.Linear(hidden_dim, hidden_dim)
        self.lin3 = nn.Linear(hidden_dim, hid_channels * 4 * 4)
        self.convT1 = nn.ConvTranspose2d(
            hid_channels, hid_channels, kernel_size, **cnn_kwargs
        )
        self.convT2 = nn.ConvTranspose2d(
            hid_channels, hid_channels, kernel_size, **cnn_kwargs
        )
        self.convT3 = nn.ConvTranspose2d(
            hid_channels, img_size[0], kernel_size, **cnn_kwargs
        )

    def forward(self, z):
        batch_size = z.size(0)
        x = torch.relu(self.lin1(z))
        x = torch.relu(self.lin2(x))
        x = torch.relu(self.lin3(x))
        x = x.view(batch_size, *self.reshape)
        x = torch.relu(self.convT1(x))
        x = torch.relu(self.convT2(x))
        return torch.sigmoid(self.convT3(x))


class VAE(nn.Module):
    def __init__(self, img_size, latent_dim):
        super().__init__()
        self.encoder = EncoderBurgess(img_size, latent_dim)
        self.decoder = DecoderBurgess(img_size, latent_dim)

    def reparameterize(self, mean, logvar):
        if self.training:
            std = torch.exp(0.5 * logvar)
            eps = torch.randn_like(std)
            return mean + std * eps
        return mean

    def forward(self, x):
        latent_dist = self.encoder(x)
        latent_sample = self.reparameterize(*latent_dist)
        reconstruct = self.decoder(latent_sample)
        return reconstruct, latent_dist, latent_sample

    def sample_latent(self, x):
        latent_dist = self.encoder(x)
        return self.reparameterize(*latent_dist)


class Discriminator(nn.Module):
    def __init__(self, neg_slope=0.2, latent_dim=10, hidden_units=100):
        super().__init__()
        self.leaky_relu = nn.LeakyReLU(neg_slope, True)
        self.lin1 = nn.Linear(latent_dim, hidden_units)
        self.lin2 = nn.Linear(hidden_units, hidden_units)
        self.lin3 = nn.Linear(hidden_units, hidden_units)
        self.lin4 = nn.Linear(hidden_units, hidden_units)
        self.lin5 = nn.Linear(hidden_units, hidden_units)
        self.lin6 = nn.Linear(hidden_units, 2)

    def forward(self, z):
        z = self.leaky_relu(self.lin1(z))
        z = self.leaky_relu(self.lin2(z))
        z = self.leaky_relu(self.lin3(z))
        z = self.leaky_relu(self.lin4(z))
        z = self.leaky_relu(self.lin5(z))
        return self.lin6(z)


def _permute_dims(latent_sample):
    perm = torch.zeros_like(latent_sample)
    batch_size, dim_z = perm.size()
    for z in range(dim_z):
        pi = torch.randperm(batch_size)
        perm[:, z] = latent_sample[pi, z]
    return perm


def linear_annealing(init, fin, step, annealing_steps):
    if annealing_steps == 0:
        return fin
    annealed = min(init + (fin - init) * step / annealing_steps, fin)
    return annealed


class FactorKLoss:
    def __init__(self, gamma=6.0, steps_anneal=10000, latent_dim=10):
        self.gamma = gamma
        self.steps_anneal = steps_anneal
        self.n_train_steps = 0
        self.discriminator = Discriminator(latent_dim=latent_dim)
        self.optimizer_d = optim.Adam(
            self.discriminator.parameters(), lr=5e-5, betas=(0.5, 0.9)
        )

    def call_optimize(self, data, model, optimizer):
        self.n_train_steps += 1
        half_batch_size = data.size(0) // 2
        data1, data2 = data.split(half_batch_size)

        # Factor VAE Loss
        recon_batch, latent_dist, latent_sample1 = model(data1)
        rec_loss = F.binary_cross_entropy(
            recon_batch, data1, reduction="sum"
        ) / data1.size(0)
        mean, logvar = latent_dist
        kl_loss = (
            0.5 * (-1 - logvar + mean.pow(2) + logvar.exp()).mean(0)
        ).sum()
        d_z = self.discriminator(latent_sample1)
        tc_loss = (d_z[:, 0] - d_z[:, 1]).mean()
        anneal_reg = linear_annealing(
            0, 1, self.n_train_steps, self.steps_anneal
        )
        vae_loss = (
            rec_loss + kl_loss + anneal_reg * self.gamma * tc_loss
        )

        # Compute VAE gradients
        optimizer.zero_grad()
        vae_loss.backward(retain_graph=True)

        # Discriminator Loss
        latent_sample2 = model.sample_latent(data2)
        z_perm = _permute_dims(latent_sample2).detach()
        d_z_perm = self.discriminator(z_perm)
        ones = torch.ones(half_batch_size, dtype=torch.long)
        zeros = torch.zeros_like(ones)
        d_tc_loss = 0.5 * (
            F.cross_entropy(d_z, zeros)
            + F.cross_entropy(d_z_perm, ones)
        )

        # Compute discriminator gradients
        self.optimizer_d.zero_grad()
        d_tc_loss.backward()

        # Update at the end (since pytorch 1.5. complains if update
        # before)
        optimizer.step()
        self.optimizer_d.step()
        return vae_loss, d_tc_loss


def vae_encoder_grads(model0, disc0, loss_f, data):
    # the VAE loss made again from scratch on copies from before the
    # step, with the same random draws; also its tc term's own part
    data1 = data.split(data.size(0) // 2)[0]
    recon, (mean, logvar), z1 = model0(data1)
    rec = F.binary_cross_entropy(recon, data1, reduction="sum")
    rec = rec / data1.size(0)
    kl = (
        0.5 * (-1 - logvar + mean.pow(2) + logvar.exp()).mean(0)
    ).sum()
    d_z = disc0(z1)
    anneal = linear_annealing(
        0, 1, loss_f.n_train_steps, loss_f.steps_anneal
    )
    tc = anneal * loss_f.gamma * (d_z[:, 0] - d_z[:, 1]).mean()
    enc = list(model0.encoder.parameters())
    vae = torch.autograd.grad(rec + kl + tc, enc, retain_graph=True)
    return vae, torch.autograd.grad(tc, enc)


def norm(grads):
    return torch.sqrt(sum((g**2).sum() for g in grads)).item()


img_size = (1, 32, 32)
model = VAE(img_size, latent_dim=10)
model.train()
optimizer = optim.Adam(model.parameters(), lr=1e-4)
loss_f = FactorKLoss()
images = (torch.rand(48, *img_size) > 0.5).float()
for step, data in enumerate(images.split(16)):
    model0 = copy.deepcopy(model)
    disc0 = copy.deepcopy(loss_f.discriminator)
    draws = torch.get_rng_state()
    vae_loss, d_tc_loss = loss_f.call_optimize(data, model, optimizer)
    after = torch.get_rng_state()
    torch.set_rng_state(draws)
    vae, tc = vae_encoder_grads(model0, disc0, loss_f, data)
    torch.set_rng_state(after)
    extra = [
        p.grad - g for p, g in zip(model.encoder.parameters(), vae)
    ]
    print(
        f"step {step}: vae_loss {vae_loss.item():.3f}, "
        f"d_tc_loss {d_tc_loss.item():.4f}, encoder grads = the VAE "
        f"loss's: {norm(extra) < 1e-6}, the discriminator's loss adds "
        f"{norm(extra):.2e} to them, the tc term's own part is "
        f"{norm(tc):.2e}"
    )
