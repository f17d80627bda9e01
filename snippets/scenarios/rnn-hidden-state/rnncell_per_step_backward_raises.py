import torch
from torch import nn

torch.manual_seed(0)
cell = nn.RNNCell(input_size=3, hidden_size=4)
head = nn.Linear(4, 1)
params = list(cell.parameters()) + list(head.parameters())
opt = torch.optim.SGD(params, lr=0.1)

# Online learning: one sample arrives per time step, and the model
# is updated at every step.
xs, ys = torch.randn(6, 1, 3), torch.randn(6, 1, 1)
h = torch.zeros(1, 4)

for t in range(6):
    h = cell(xs[t], h)  # h carries the graph of every earlier step
    loss = nn.functional.mse_loss(head(h), ys[t])
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {t}: loss = {loss.item():.4f}")
