import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)

total = 0.0
for step in range(2):
    x, target = torch.randn(8, 3), torch.randn(8, 1)
    total = total + nn.functional.mse_loss(model(x), target)
    opt.zero_grad()
    # retain_graph=True silences "backward a second time" for step 0's
    # graph, but opt.step() then changes the weights it saved.
    total.backward(retain_graph=True)
    opt.step()
    print(f"step {step} done")
