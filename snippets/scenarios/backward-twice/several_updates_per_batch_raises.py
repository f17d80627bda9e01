import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(32, 4), torch.randn(32, 1)

# Two updates on the same batch, but one forward pass for both.
loss = nn.functional.mse_loss(model(x), y)
for update in range(2):
    opt.zero_grad()
    loss.backward()  # update 1 finds the graph freed by update 0
    opt.step()
    print(f"update {update}: loss {loss.item():.4f}")
