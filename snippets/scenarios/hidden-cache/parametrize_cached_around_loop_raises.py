import torch
from torch import nn
from torch.nn.utils import parametrize
from torch.nn.utils.parametrizations import orthogonal

torch.manual_seed(0)
cell = orthogonal(nn.RNNCell(3, 4), "weight_hh")
opt = torch.optim.SGD(cell.parameters(), lr=0.1)
xs = torch.randn(5, 2, 3)  # 5 time steps, batch of 2

# The cache is entered once, around the whole training loop.
with parametrize.cached():
    for step in range(2):
        h = torch.zeros(2, 4)
        for x in xs:  # every time step reads cell.weight_hh
            h = cell(x, h)
        loss = h.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step}: loss = {loss.item():.4f}")
