import math

import torch
import torch.nn as nn
from torch.distributions import Independent, Normal

torch.manual_seed(0)


def two_moons(n):
    t = torch.rand(n) * math.pi
    upper = torch.rand(n) < 0.5
    x = torch.where(upper, torch.cos(t), 1 - torch.cos(t))
    y = torch.where(upper, torch.sin(t), 0.5 - torch.sin(t))
    return torch.stack([x, y], 1) + 0.05 * torch.randn(n, 2)


class AdditiveCoupling(nn.Module):
    def __init__(self, mask, hidden=64):
        super().__init__()
        self.register_buffer("mask", mask)
        self.net = nn.Sequential(
            nn.Linear(2, hidden),
            nn.ReLU(),
            nn.Linear(hidden, hidden),
            nn.ReLU(),
            nn.Linear(hidden, 2),
        )

    def forward(self, x):
        return x + (1 - self.mask) * self.net(x * self.mask)


class NICE(nn.Module):
    def __init__(self, n_layers=4):
        super().__init__()
        masks = [
            torch.tensor([1.0, 0.0]) if i % 2 == 0 else torch.tensor([0.0, 1.0])
            for i in range(n_layers)
        ]
        self.layers = nn.ModuleList(AdditiveCoupling(m) for m in masks)
        self.prior_loc = nn.Parameter(torch.zeros(2))
        self.prior_log_scale = nn.Parameter(torch.zeros(2))
        self.prior = Independent(Normal(self.prior_loc, self.prior_log_scale.exp()), 1)

    def log_prob(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.prior.log_prob(x)


flow = NICE()
optimizer = torch.optim.Adam(flow.parameters(), lr=1e-3)

for step in range(1000):
    x = two_moons(256)
    loss = -flow.log_prob(x).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 200 == 0:
        print(step, loss.item())
