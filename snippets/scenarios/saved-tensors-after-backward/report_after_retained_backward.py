import torch
from saved_report import report
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
x, target = torch.randn(64, 8), torch.randn(64, 1)

loss = nn.functional.mse_loss(model(x), target)
loss.backward(retain_graph=True)
# Nothing was freed: the report works, and shows what is still held.
print("after backward(retain_graph=True):", report(loss))
