import torch
from torch import nn
from torch.nn.utils import parametrize
from torch.nn.utils.parametrizations import orthogonal

torch.manual_seed(0)
cell = orthogonal(nn.RNNCell(3, 4), "weight_hh")
opt = torch.optim.SGD(cell.parameters(), lr=0.1)
xs = torch.randn(5, 2, 3)

calls = 0


def count(module, args, output):
    global calls
    calls += 1


# Counts how often the orthogonal weight is computed.
cell.parametrizations.weight_hh.register_forward_hook(count)


def forward():
    h = torch.zeros(2, 4)
    for x in xs:  # every time step reads cell.weight_hh
        h = cell(x, h)
    return h.pow(2).mean()


for step in range(3):
    calls = 0
    with parametrize.cached():  # one forward and its backward
        loss = forward()
        opt.zero_grad()
        loss.backward()
    opt.step()
    print(f"step {step}: loss = {loss.item():.4f}, computed {calls}x")

calls = 0
forward()
print(f"without cached(): computed {calls}x for 5 time steps")
