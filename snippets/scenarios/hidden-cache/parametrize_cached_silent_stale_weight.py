import torch
from torch import nn
from torch.nn.utils import parametrize


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).T


torch.manual_seed(0)
layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Symmetric())
opt = torch.optim.SGD(layer.parameters(), lr=0.1)
x = torch.randn(4, 3)

with parametrize.cached():  # around the loop, no retain_graph
    first = layer.weight.detach().clone()
    for step in range(3):
        loss = layer(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()  # no error: triu and add save no tensor
        opt.step()
        print(f"step {step}: loss = {loss.item():.4f}")
    used = layer.weight

print(f"every step used the step-0 weight: {torch.equal(used, first)}")
