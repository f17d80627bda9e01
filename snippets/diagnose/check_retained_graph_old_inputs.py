"""An attack on a model that normalizes its input matrix once and
caches it, with retain_graph=True added to silence the error: the
perturbation is made anew at each step, the cached matrix still leads
to the first one, and the new one gets no gradient."""

import torch
from torch import nn

torch.manual_seed(0)


class Propagate(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)
        self.cached = None

    def forward(self, x, adj):
        if self.cached is None:  # normalized once, then reused
            self.cached = adj / adj.sum(1, keepdim=True)
        return self.cached @ self.lin(x)


model = Propagate().requires_grad_(False)
x, adj = torch.randn(5, 4), torch.rand(5, 5) + 0.1
labels = torch.randint(3, (5,))
delta = torch.zeros(5, 5)
for step in range(3):
    delta.requires_grad_(True)
    loss = nn.functional.cross_entropy(model(x, adj + delta), labels)
    loss.backward(retain_graph=True)  # the error message's advice
    print(f"step {step}: delta.grad is None: {delta.grad is None}")
    if delta.grad is None:
        break
    with torch.no_grad():  # a new perturbation, as attacks make it
        delta = (delta + 0.1 * delta.grad.sign()).clamp(-0.1, 0.1)
