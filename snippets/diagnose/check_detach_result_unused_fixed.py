"""The first-order inner step with its gradients made constants: the
values detach() returns replace the gradients."""

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
params = list(model.parameters())
for step in range(2):
    x, y = torch.randn(8, 4), torch.randn(8, 2)
    inner = (model(x) - y).pow(2).mean()
    grads = torch.autograd.grad(inner, params, create_graph=True)
    grads = [g.detach() for g in grads]  # constants, a first-order step
    fast = [p - 0.5 * g for p, g in zip(params, grads)]
    outer = (nn.functional.linear(x, *fast) - y).pow(2).mean()
    # What a first-order step gives: the outer gradient at fast weights.
    want = torch.autograd.grad(outer, fast, retain_graph=True)
    opt.zero_grad()
    outer.backward()
    same = all(torch.allclose(p.grad, w) for p, w in zip(params, want))
    print(f"step {step}: the gradient is the first-order one: {same}")
    opt.step()
