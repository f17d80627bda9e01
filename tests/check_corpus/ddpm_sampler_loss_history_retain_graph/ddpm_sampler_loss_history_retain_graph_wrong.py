# source: written blind
# DDPM on 2-D data with a loss-aware timestep sampler (importance sampling of
# t by the RMS of recent per-timestep losses, as in Improved DDPM). The
# author intended: the sampler keeps a history of recent losses per timestep
# as plain statistics; they decide which t to draw and the importance weight
# 1 / (T p_t) that rescales each sample's loss. The history is bookkeeping,
# not something to backpropagate through.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

T = 20


class LossSecondMomentSampler:
    def __init__(self, num_timesteps, history=4, uniform_prob=0.1):
        self.T = num_timesteps
        self.uniform_prob = uniform_prob
        self.loss_history = torch.ones(num_timesteps, history)
        self.ptr = torch.zeros(num_timesteps, dtype=torch.long)

    def weights(self):
        w = self.loss_history.pow(2).mean(dim=1).sqrt()
        w = w / w.sum()
        return w * (1 - self.uniform_prob) + self.uniform_prob / self.T

    def sample(self, batch_size, gen):
        p = self.weights()
        t = torch.multinomial(p.detach(), batch_size, replacement=True, generator=gen)
        return t, 1.0 / (self.T * p[t])

    def update_with_losses(self, ts, losses):
        for t, loss in zip(ts.tolist(), losses):
            self.loss_history[t, self.ptr[t]] = loss
            self.ptr[t] = (self.ptr[t] + 1) % self.loss_history.size(1)


class Denoiser(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.t_embed = nn.Embedding(T, hidden)
        self.inp = nn.Linear(2, hidden)
        self.net = nn.Sequential(nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, 2))

    def forward(self, x_t, t):
        return self.net(self.inp(x_t) + self.t_embed(t))


def make_schedule():
    betas = torch.linspace(1e-3, 0.2, T)
    return torch.cumprod(1 - betas, 0)


def two_moons(n, gen):
    a = torch.rand(n, generator=gen) * math.pi
    upper = torch.rand(n, generator=gen) < 0.5
    x = torch.where(upper[:, None], torch.stack([a.cos(), a.sin()], 1),
                    torch.stack([1 - a.cos(), 0.5 - a.sin()], 1))
    return x + 0.05 * torch.randn(n, 2, generator=gen)


def main():
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    alpha_bar = make_schedule()
    model = Denoiser()
    sampler = LossSecondMomentSampler(T)
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    for step in range(30):
        x0 = two_moons(128, gen)
        t, weights = sampler.sample(x0.size(0), gen)
        noise = torch.randn(x0.shape, generator=gen)
        ab = alpha_bar[t][:, None]
        x_t = ab.sqrt() * x0 + (1 - ab).sqrt() * noise
        per_sample = F.mse_loss(model(x_t, t), noise, reduction="none").mean(1)
        loss = (per_sample * weights).mean()
        opt.zero_grad()
        loss.backward(retain_graph=True)
        opt.step()
        sampler.update_with_losses(t, per_sample)
        if step % 5 == 0:
            print(f"step {step} weighted loss {loss.item():.4f} raw loss {per_sample.mean().item():.4f}")


if __name__ == "__main__":
    main()
