"""The fix: the weight penalty made in each step, from the weights as
they are, with its graph."""

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 4))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(32, 6)


def distance():
    return (model(x) ** 2).sum(-1).mean()


for step in range(2):
    penalty = 1e-2 * sum(
        torch.linalg.norm(w) for w in model.parameters()
    )
    loss = distance() + penalty
    optimizer.zero_grad()
    loss.backward()
    w = model[0].weight
    (alone,) = torch.autograd.grad(distance(), w)
    share = 1e-2 * w / torch.linalg.norm(w)  # d(0.01 |w|) / dw
    print(
        f"step {step}: the penalty adds its gradient to w.grad:",
        end=" ",
    )
    print(torch.allclose(w.grad - alone, share, atol=1e-6))
    optimizer.step()
