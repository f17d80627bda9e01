import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(16, 4), torch.randn(16, 1)

total = 0.0
for step in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    total = total + loss
    total.backward(retain_graph=True)
    # step() changes the weights in place; step 0's graph saved the
    # last layer's weight and now finds a newer version of it.
    opt.step()
    print(f"step {step}: mean loss {total.item() / (step + 1):.4f}")
