import torch
from torch import nn

torch.manual_seed(0)

encoder = nn.Sequential(nn.Linear(8, 32), nn.ReLU())
head = nn.Linear(32, 1)
params = list(encoder.parameters()) + list(head.parameters())
lr = 0.05
x, y = torch.randn(64, 8), torch.randn(64, 1)

features = encoder(x)  # the inputs do not change, so encode them once
for step in range(3):
    loss = nn.functional.mse_loss(head(features), y)
    loss.backward()
    for p in params:  # plain SGD, by hand
        p.data.add_(p.grad, alpha=-lr)
        p.grad = None
    print(f"step {step}: loss {loss.item():.3f}")
