import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
x, target = torch.randn(8, 3), torch.randn(8, 1)

loss = nn.functional.mse_loss(model(x), target, reduction="none")
loss.mean().backward()  # reduce to one number first
print(f"weight.grad.shape = {tuple(model.weight.grad.shape)}")
