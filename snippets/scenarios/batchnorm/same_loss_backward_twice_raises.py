import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(
    nn.Linear(3, 8), nn.BatchNorm1d(8), nn.Linear(8, 1)
)
x, y = torch.randn(16, 3), torch.randn(16, 1)

loss = nn.functional.mse_loss(model(x), y)
loss.backward()  # say, in a helper that logs the gradient norm
print(f"first backward done, loss = {loss.item():.4f}")
loss.backward()  # the training step's own backward: same graph
