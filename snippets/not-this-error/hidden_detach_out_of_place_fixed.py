import torch
from torch import nn

torch.manual_seed(0)
cell = nn.GRUCell(input_size=3, hidden_size=4)
head = nn.Linear(4, 1)
opt = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.1)

h = torch.zeros(2, 4)
for step in range(2):
    h = h.detach()  # a new tensor; the one the graph saved is untouched
    x, target = torch.randn(2, 3), torch.randn(2, 1)
    h = cell(x, h)
    loss = nn.functional.mse_loss(head(h), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} done")
