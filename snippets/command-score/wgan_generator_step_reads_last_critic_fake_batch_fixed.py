"""PyTorch-GAN's WGAN (implementations/wgan/wgan.py) with its typo
fixed: the generator's step scores the batch it has just generated
(commit 48e84ef, "WGAN: Fixed typo. Resolves #6").

Source: https://github.com/eriklindernoren/PyTorch-GAN/issues/6
The user wanted to run the repository's WGAN: n_critic critic steps
on clipped weights, then one generator step on a new generated batch.
Kept: the critic loop (backward of the real and fake validity with
-1 and +1 as gradients, RMSprop, weight clipping) and the generator
step as released; changed: MNIST and the convnets became small MLPs
on random data, two generator steps.
"""

import torch
from torch import nn

torch.manual_seed(0)
LATENT, PIXELS, BATCH = 8, 16, 32
N_CRITIC, CLIP, LR = 3, 0.01, 5e-5

generator = nn.Sequential(
    nn.Linear(LATENT, 32), nn.ReLU(), nn.Linear(32, PIXELS), nn.Tanh()
)
discriminator = nn.Sequential(
    nn.Linear(PIXELS, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1)
)
optimizer_G = torch.optim.RMSprop(generator.parameters(), lr=LR)
optimizer_D = torch.optim.RMSprop(discriminator.parameters(), lr=LR)
data_iter = iter((torch.rand(6 * BATCH, PIXELS) * 2 - 1).split(BATCH))

for i in range(2):
    for _ in range(N_CRITIC):
        real_imgs = next(data_iter)
        valid = torch.full((BATCH, 1), -1.0)
        fake = torch.full((BATCH, 1), 1.0)
        optimizer_D.zero_grad()
        z = torch.randn(BATCH, LATENT)
        fake_imgs = generator(z)
        real_validity = discriminator(real_imgs)
        real_validity.backward(valid)
        fake_validity = discriminator(fake_imgs)
        fake_validity.backward(fake)
        d_loss = (real_validity - fake_validity).mean()
        optimizer_D.step()
        for p in discriminator.parameters():
            p.data.clamp_(-CLIP, CLIP)

    optimizer_G.zero_grad()
    z = torch.randn(BATCH, LATENT)
    gen_imgs = generator(z)
    gen_validity = discriminator(gen_imgs)
    gen_validity.backward(valid)
    # the generator's gradient, from this step's z alone
    params = list(generator.parameters())
    ref = torch.autograd.grad(
        discriminator(generator(z)), params, valid
    )
    fresh = all(torch.allclose(p.grad, r) for p, r in zip(params, ref))
    optimizer_G.step()
    print(
        f"step {i}: D {d_loss.item():.4f}, "
        f"G {gen_validity.mean().item():.4f}, "
        f"generator grad from this step's batch: {fresh}"
    )
