"""A first-order inner step that means to make its gradients constants,
written as `g = g.detach()` on the loop variable: detach() returns a
new tensor and leaves the one it is called on as it was, so the outer
loss still runs through the inner gradient's graph (second order)."""

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
    for g in grads:
        g = g.detach()  # meant: constants, a first-order step
    fast = [p - 0.5 * g for p, g in zip(params, grads)]
    outer = (nn.functional.linear(x, *fast) - y).pow(2).mean()
    # What a first-order step gives: the outer gradient at fast weights.
    want = torch.autograd.grad(outer, fast, retain_graph=True)
    opt.zero_grad()
    outer.backward()
    same = all(torch.allclose(p.grad, w) for p, w in zip(params, want))
    print(f"step {step}: the gradient is the first-order one: {same}")
    opt.step()
