"""Learned synthetic examples, trained through one inner step of a
model made fresh at each step. The inner gradient is taken as
first-order code takes it, without create_graph=True: the examples
reach the outer loss only through that gradient, which has no graph."""

import torch
from torch.nn import functional as F

torch.manual_seed(0)
x_real = torch.randn(64, 5)
y_real = (x_real[:, 0] > 0).long()
x_syn = torch.nn.Parameter(torch.randn(2, 5))
y_syn = torch.tensor([0, 1])
opt = torch.optim.Adam([x_syn], lr=0.1)
for step in range(3):
    w = (0.1 * torch.randn(5, 2)).requires_grad_()
    inner = F.cross_entropy(x_syn @ w, y_syn)
    (g,) = torch.autograd.grad(inner, w)  # no create_graph=True
    outer = F.cross_entropy(x_real @ (w - 0.5 * g), y_real)
    opt.zero_grad()
    outer.backward()
    opt.step()
    print(f"step {step}: x_syn.grad is None: {x_syn.grad is None}")
