import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
x = torch.randn(1, 3)  # an input: requires_grad is off by default

score = model(x).sum()
# A saliency map: the gradient of the score with respect to the input.
(saliency,) = torch.autograd.grad(score, x)
