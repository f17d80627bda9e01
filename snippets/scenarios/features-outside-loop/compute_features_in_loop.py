import torch
from torch import nn

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(6, 16), nn.ReLU())
head = nn.Linear(16, 1)
params = [*encoder.parameters(), *head.parameters()]
opt = torch.optim.SGD(params, lr=0.1)
x, y = torch.randn(32, 6), torch.randn(32, 1)

# --8<-- [start:fix]
for step in range(3):
    opt.zero_grad()
    features = encoder(x)  # a new graph, from the current weights
    loss = nn.functional.mse_loss(head(features), y)
    loss.backward()
    opt.step()
    # --8<-- [end:fix]
    print(f"step {step}: loss {loss.item():.4f}")
