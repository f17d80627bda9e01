import torch
from torch import nn

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(6, 16), nn.ReLU())
head = nn.Linear(16, 1)
opt = torch.optim.SGD(head.parameters(), lr=0.1)  # the head only
x, y = torch.randn(32, 6), torch.randn(32, 1)

with torch.no_grad():  # plain numbers: no graph into the encoder
    features = encoder(x)

for step in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(head(features), y)
    loss.backward()  # stops at features
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}")

print(f"features.requires_grad: {features.requires_grad}")
print(f"encoder weight .grad is None: {encoder[0].weight.grad is None}")
