import torch
from saved_report import report
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, target = torch.randn(64, 8), torch.randn(64, 1)

loss = nn.functional.mse_loss(model(x), target)
opt.zero_grad()
loss.backward(retain_graph=True)  # nothing freed this time
opt.step()  # but the weights the graph saved change in place
print(f"loss = {loss.item():.4f}")
print(report(loss))
