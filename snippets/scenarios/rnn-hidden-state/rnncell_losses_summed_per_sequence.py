import torch
from torch import nn

torch.manual_seed(0)
cell = nn.RNNCell(input_size=3, hidden_size=4)
head = nn.Linear(4, 1)
params = list(cell.parameters()) + list(head.parameters())
opt = torch.optim.SGD(params, lr=0.1)

xs, ys = torch.randn(3, 6, 1, 3), torch.randn(3, 6, 1, 1)

for seq in range(3):
    h = torch.zeros(1, 4)  # each sequence starts from a fresh state
    losses = []
    for t in range(6):
        h = cell(xs[seq, t], h)
        losses.append(nn.functional.mse_loss(head(h), ys[seq, t]))
    loss = torch.stack(losses).mean()
    opt.zero_grad()
    loss.backward()  # once per sequence, through all six steps
    opt.step()
    print(f"sequence {seq}: loss = {loss.item():.4f}")
