# source: written blind
# Score model trained with sliced score matching (variance-reduced form) on a
# 2-D Gaussian mixture, with an EMA copy of the network used for Langevin
# sampling. The author intended the loss per sample to be
#     v^T (d s(x) / dx) v + 0.5 * ||s(x)||^2,   v ~ N(0, I),
# where the first (trace) term is a directional derivative of the score
# network and must itself be differentiated w.r.t. the network weights.
import copy
import math

import torch
import torch.nn as nn


class ScoreNet(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(2, hidden),
            nn.Softplus(),
            nn.Linear(hidden, hidden),
            nn.Softplus(),
            nn.Linear(hidden, 2),
        )

    def forward(self, x):
        return self.net(x)


def sample_mixture(n, gen):
    angles = torch.randint(0, 4, (n,), generator=gen).float() * (math.pi / 2)
    centers = torch.stack([angles.cos(), angles.sin()], 1) * 2.0
    return centers + 0.3 * torch.randn(n, 2, generator=gen)


def ssm_vr_loss(score_net, x):
    x = x.requires_grad_(True)
    v = torch.randn_like(x)
    s = score_net(x)
    sv = (s * v).sum()
    grad_sv = torch.autograd.grad(sv, x)[0]
    trace_term = (grad_sv * v).sum(-1)
    norm_term = 0.5 * (s**2).sum(-1)
    return (trace_term + norm_term).mean()


@torch.no_grad()
def ema_update(ema_model, model, decay=0.95):
    for pe, p in zip(ema_model.parameters(), model.parameters()):
        pe.mul_(decay).add_(p, alpha=1 - decay)


@torch.no_grad()
def langevin(score_net, n, steps=20, eps=0.02):
    x = torch.randn(n, 2) * 2
    for _ in range(steps):
        x = x + 0.5 * eps * score_net(x) + math.sqrt(eps) * torch.randn_like(x)
    return x


def main():
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    model = ScoreNet()
    ema_model = copy.deepcopy(model).requires_grad_(False)
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    for step in range(40):
        x = sample_mixture(128, gen)
        loss = ssm_vr_loss(model, x)
        opt.zero_grad()
        loss.backward()
        opt.step()
        ema_update(ema_model, model)
        if step % 10 == 0:
            samples = langevin(ema_model, 256)
            print(
                f"step {step} ssm loss {loss.item():.4f} sample radius {samples.norm(dim=1).mean():.3f}"
            )


if __name__ == "__main__":
    main()
