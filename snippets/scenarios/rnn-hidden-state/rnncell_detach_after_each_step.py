import torch
from torch import nn

torch.manual_seed(0)
cell = nn.RNNCell(input_size=3, hidden_size=4)
head = nn.Linear(4, 1)
params = list(cell.parameters()) + list(head.parameters())
opt = torch.optim.SGD(params, lr=0.1)

xs, ys = torch.randn(6, 1, 3), torch.randn(6, 1, 1)
h = torch.zeros(1, 4)

for t in range(6):
    h = cell(xs[t], h)
    loss = nn.functional.mse_loss(head(h), ys[t])
    opt.zero_grad()
    loss.backward()
    opt.step()
    # The next step starts from h's value, without this step's graph.
    h = h.detach()
    print(f"step {t}: loss = {loss.item():.4f}")
