# StyleGAN2's path length regularization, added to the generator's
# loss: the Jacobian-vector product g = d(img . noise)/dw from
# torch.autograd.grad. The generator loss's backward then raised the
# backward-twice error (the grad call had freed the generator's
# graph); retain_graph=True made it run, but without
# create_graph=True the path penalty trains nothing.
# https://github.com/rosinality/stylegan2-pytorch/issues/32
import math

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
mapping = nn.Sequential(nn.Linear(8, 8), nn.LeakyReLU(0.2),
                        nn.Linear(8, 8))
synth = nn.Sequential(nn.Linear(8, 32), nn.LeakyReLU(0.2),
                      nn.Linear(32, 16), nn.Tanh())
disc = nn.Sequential(nn.Linear(16, 32), nn.LeakyReLU(0.2),
                     nn.Linear(32, 1))
g_params = [*mapping.parameters(), *synth.parameters()]
g_optim = torch.optim.Adam(g_params, lr=2e-3, betas=(0.0, 0.99))
d_optim = torch.optim.Adam(disc.parameters(), lr=2e-3,
                           betas=(0.0, 0.99))
real_all = torch.randn(8, 32, 16).tanh()
z_all = torch.randn(8, 2, 32, 8)
noise_all = torch.randn(8, 32, 16) / math.sqrt(16)
path_regularize = 2.0
mean_path_length = torch.tensor(0.0)


def path_terms(latents, fake_img, noise, mean_path, create_graph):
    grad, = torch.autograd.grad((fake_img * noise).sum(), latents,
                                retain_graph=True,
                                create_graph=create_graph)
    path_lengths = grad.pow(2).sum(1).sqrt()
    path_mean = mean_path + 0.01 * (path_lengths.mean() - mean_path)
    return (path_lengths - path_mean).pow(2).mean(), path_mean


def rel(a, b):
    a = torch.cat([t.flatten() for t in a])
    b = torch.cat([t.flatten() for t in b])
    return ((a - b).norm() / b.norm()).item()


for it in range(8):
    fake = synth(mapping(z_all[it, 0]))
    d_loss = (F.softplus(disc(fake.detach())).mean()
              + F.softplus(-disc(real_all[it])).mean())
    d_optim.zero_grad()
    d_loss.backward()
    d_optim.step()

    latents = mapping(z_all[it, 1])
    fake_img = synth(latents)
    grad, = torch.autograd.grad((fake_img * noise_all[it]).sum(),
                                latents, retain_graph=True)
    path_lengths = grad.pow(2).sum(1).sqrt()
    path_mean = mean_path_length + 0.01 * (
        path_lengths.mean() - mean_path_length)
    path_penalty = (path_lengths - path_mean).pow(2).mean()
    g_loss = (F.softplus(-disc(fake_img)).mean()
              + path_regularize * path_penalty)

    w = mapping(z_all[it, 1])
    img = synth(w)
    penalty, _ = path_terms(w, img, noise_all[it], mean_path_length,
                            create_graph=True)
    want = torch.autograd.grad(F.softplus(-disc(img)).mean()
                               + path_regularize * penalty, g_params)
    mean_path_length = path_mean.detach()
    g_optim.zero_grad()
    g_loss.backward()
    used = [p.grad for p in g_params]
    g_optim.step()
    print(f"iteration {it}: path penalty {path_penalty.item():.5f}, "
          f"path length spread {path_lengths.std().item():.4f}; "
          f"generator grad vs the objective's {rel(used, want):.3f} "
          f"(relative)")
