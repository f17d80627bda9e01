import torch
from torch import nn

torch.manual_seed(0)
cell, head = nn.RNNCell(16, 32), nn.Linear(32, 1)
params = [*cell.parameters(), *head.parameters()]
opt = torch.optim.SGD(params, lr=0.01)
h = torch.zeros(8, 32)  # the hidden state, carried across steps

# --8<-- [start:fix]
for step in range(3):
    x, y = torch.randn(8, 16), torch.randn(8, 1)
    opt.zero_grad()
    h = h.detach()  # keep the values, drop the earlier steps' graph
    h = cell(x, h)
    loss = nn.functional.mse_loss(head(h), y)
    loss.backward()  # no retain_graph=True
    # --8<-- [end:fix]
    before = cell.weight_hh._version
    opt.step()
    print(
        f"step {step}: loss {loss.item():.4f}, weight_hh version "
        f"{before} -> {cell.weight_hh._version}"
    )
