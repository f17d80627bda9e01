import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(32, 4), torch.randn(32, 1)

loss = nn.functional.mse_loss(model(x), y)
for update in range(2):
    opt.zero_grad()
    loss.backward(retain_graph=True)  # the "fix"
    # The graph saved the last layer's weight; step() changes it in
    # place, and the next backward through the old graph notices.
    opt.step()
    print(f"update {update}: loss {loss.item():.4f}")
