import torch
from torch import nn

torch.manual_seed(0)

encoder = nn.Sequential(nn.Linear(6, 24), nn.Tanh())
head = nn.Linear(24, 3)
params = list(encoder.parameters()) + list(head.parameters())
lr = 0.1
x, y = torch.randn(48, 6), torch.randint(0, 3, (48,))

for step in range(4):
    features = encoder(x)
    loss = nn.functional.cross_entropy(head(features), y)
    loss.backward()
    with torch.no_grad():
        for p in params:  # plain SGD by hand
            p.data -= lr * p.grad
            p.grad = None
    print(f"step {step}: loss {loss.item():.3f}")
