import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
x = torch.randn(1, 3).requires_grad_()  # before the forward pass

score = model(x).sum()
(saliency,) = torch.autograd.grad(score, x)
print(f"saliency.shape = {tuple(saliency.shape)}")
