import torch
from torch import nn

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(6, 16), nn.ReLU())  # "pretrained"
head = nn.Linear(16, 1)
params = [*encoder.parameters(), *head.parameters()]
opt = torch.optim.SGD(params, lr=0.1)
x, y = torch.randn(32, 6), torch.randn(32, 1)

features = encoder(x)  # once, to save time: a graph, built once

for step in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(head(features), y)
    loss.backward()  # step 1 reaches the encoder's freed nodes
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}")
