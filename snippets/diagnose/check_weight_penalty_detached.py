"""A weight penalty made once and detached so that the error goes
away: the loss adds a constant, and the penalty trains nothing."""

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 4))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(32, 6)


def distance():
    return (model(x) ** 2).sum(-1).mean()


penalty = 1e-2 * sum(torch.linalg.norm(w) for w in model.parameters())
penalty = penalty.detach()  # the "fix" for the second backward
for step in range(2):
    loss = distance() + penalty
    optimizer.zero_grad()
    loss.backward()
    w = model[0].weight
    (alone,) = torch.autograd.grad(distance(), w)
    print(f"step {step}: the penalty adds to w.grad:", end=" ")
    print(not torch.allclose(w.grad, alone))
    optimizer.step()
