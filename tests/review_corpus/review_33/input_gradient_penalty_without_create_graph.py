# source: written blind
#
# What it does: trains a small MLP classifier on two interleaving half-moons with
# "input-gradient regularisation" (double backpropagation, Drucker & LeCun 1992 /
# Ross & Doshi-Velez 2018): the loss is cross-entropy plus LAMBDA times the squared
# norm of d(cross-entropy)/d(input), which makes the decision function smoother and
# more robust to small input perturbations.
# What the author intended: the penalty is part of the objective, so the model's
# parameters must receive the gradient of the penalty too (a second-order term).
# The author takes the input gradient with torch.autograd.grad(ce, x) with the default
# arguments; that call frees ce's graph, and loss.backward() then raises because the
# cross-entropy term needs that same graph.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

LAMBDA, EPOCHS, BATCH = 1.0, 3, 64


def make_moons(n, noise=0.1):
    t = torch.rand(n) * math.pi
    upper = torch.stack([torch.cos(t), torch.sin(t)], 1)
    lower = torch.stack([1 - torch.cos(t), 0.5 - torch.sin(t)], 1)
    y = torch.randint(0, 2, (n,))
    x = torch.where(y[:, None] == 0, upper, lower) + noise * torch.randn(n, 2)
    return x, y


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(2, 64), nn.Softplus(), nn.Linear(64, 64), nn.Softplus())
        self.out = nn.Linear(64, 2)

    def forward(self, x):
        return self.out(self.body(x))


def batches(x, y, bs):
    perm = torch.randperm(x.shape[0])
    for i in range(0, x.shape[0], bs):
        idx = perm[i : i + bs]
        yield x[idx], y[idx]


def train_step(model, optimizer, xb, yb):
    xb = xb.clone().requires_grad_(True)
    logits = model(xb)
    ce = F.cross_entropy(logits, yb)
    (grad_x,) = torch.autograd.grad(ce, xb)
    penalty = grad_x.pow(2).sum(dim=1).mean()
    loss = ce + LAMBDA * penalty
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return ce.item(), penalty.item()


x_train, y_train = make_moons(512)
model = MLP()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

for epoch in range(EPOCHS):
    for xb, yb in batches(x_train, y_train, BATCH):
        ce, pen = train_step(model, optimizer, xb, yb)
    with torch.no_grad():
        acc = (model(x_train).argmax(1) == y_train).float().mean().item()
    print(f"epoch {epoch}: ce={ce:.4f} grad_penalty={pen:.5f} train_acc={acc:.3f}")
