import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)

total = 0.0
for step in range(2):
    x, target = torch.randn(8, 3), torch.randn(8, 1)
    loss = nn.functional.mse_loss(model(x), target)
    opt.zero_grad()
    loss.backward()  # this step's graph only: no retain_graph
    opt.step()
    total += loss.item()  # a number, for logging
    print(f"step {step} done")
print(f"total is a {type(total).__name__}")
