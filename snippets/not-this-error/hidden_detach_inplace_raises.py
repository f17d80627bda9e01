import torch
from torch import nn

torch.manual_seed(0)
cell = nn.GRUCell(input_size=3, hidden_size=4)
head = nn.Linear(4, 1)
opt = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.1)

h = torch.zeros(2, 4)
for step in range(2):
    x, target = torch.randn(2, 3), torch.randn(2, 1)
    h = cell(x, h)
    loss = nn.functional.mse_loss(head(h), target)
    h.detach_()  # meant to cut the history, but head saved this h
    opt.zero_grad()
    loss.backward()
    opt.step()
