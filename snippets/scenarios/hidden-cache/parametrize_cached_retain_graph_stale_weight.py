import torch
from torch import nn
from torch.nn.utils import parametrize
from torch.nn.utils.parametrizations import orthogonal

torch.manual_seed(0)
cell = orthogonal(nn.RNNCell(3, 4), "weight_hh")
opt = torch.optim.SGD(cell.parameters(), lr=0.1)
xs = torch.randn(5, 2, 3)

with parametrize.cached():
    first = cell.weight_hh.detach().clone()
    for step in range(3):
        h = torch.zeros(2, 4)
        for x in xs:
            h = cell(x, h)
        loss = h.pow(2).mean()
        opt.zero_grad()
        loss.backward(retain_graph=True)  # silences the error
        opt.step()
        print(f"step {step}: loss = {loss.item():.4f}")
    used = cell.weight_hh  # what the steps multiplied by

print(f"every step used the step-0 weight: {torch.equal(used, first)}")
moved = (cell.weight_hh - first).abs().max()  # outside: recomputed
print(f"the weight the optimizer asked for differs by {moved:.4f}")
