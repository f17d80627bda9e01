"""disentangling-vae's FactorVAE loss: the discriminator's verdict
d_z on the first half-batch's latent samples makes the VAE's
total-correlation term, the VAE's backward frees its graph, the VAE
optimizer steps, and the discriminator's loss then backpropagates
through the same d_z.

Source: https://github.com/YannDubs/disentangling-vae/issues/62
("Inplace error when running FactorVAE"). The library's loss has
called vae_loss.backward() since FactorVAE was added
(ce89062), the error message's advice; on PyTorch 1.5 the reporter
then met the in-place error at d_tc_loss.backward() and traced it to
the VAE optimizer's step() between the two backward calls. The
maintainer answered that PyTorch > 1.4 checks this and committed
f8f64d8 ("[UPD] Pytorch >= 1.5"), which moves optimizer.step() after
d_tc_loss.backward(); https://github.com/YannDubs/disentangling-vae/
issues/77 then reports that, so ordered, the discriminator's loss
writes gradients into the encoder (seen in a debugging session) and
asks whether latent_sample1 must be detached too. The raising program
is the loss before f8f64d8 with retain_graph=True taken out.
Kept from disvae/models/losses.py: FactorKLoss.call_optimize (the
batch split in two halves, the VAE loss with the bernoulli
reconstruction, the KL to a unit normal, the annealed gamma * tc_loss
from d_z, backward, step, then the permuted second half-sample, the
discriminator's cross-entropy on d_z and d_z_perm, its zero_grad,
backward and step), _permute_dims and linear_annealing; from
disvae/models: the Burgess encoder and decoder (three 4x4 stride-2
convolutions of 32 channels, two linear layers of 256, mean and log
variance from one linear layer), reparameterize, sample_latent, and
the discriminator (six linear layers, LeakyReLU 0.2 in place, two
logits); the factor defaults gamma 6, reg_anneal 10000, Adam at lr
1e-4 for the VAE and 5e-5, betas (0.5, 0.9), for the discriminator.
Changed: random binary 1x32x32 images instead of MNIST, batches of 16,
100 hidden units in the discriminator instead of 1000, PyTorch's
default initialisation, no storer, the trainer's loop written out.
"""

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

        # Run VAE optimizer
        optimizer.zero_grad()
        vae_loss.backward()
        optimizer.step()

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

        # Run discriminator optimizer
        self.optimizer_d.zero_grad()
        d_tc_loss.backward()
        self.optimizer_d.step()
        return vae_loss, d_tc_loss


img_size = (1, 32, 32)
model = VAE(img_size, latent_dim=10)
model.train()
optimizer = optim.Adam(model.parameters(), lr=1e-4)
loss_f = FactorKLoss()
images = (torch.rand(48, *img_size) > 0.5).float()
for step, data in enumerate(images.split(16)):
    vae_loss, d_tc_loss = loss_f.call_optimize(data, model, optimizer)
    print(
        f"step {step}: vae_loss {vae_loss.item():.3f}, "
        f"d_tc_loss {d_tc_loss.item():.4f}"
    )
