import torch
from torch import nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(10, 32), nn.Tanh(), nn.Linear(32, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
lam = 0.1  # input-gradient penalty: a smoother, more robust model
data = [(torch.randn(16, 10), torch.randn(16, 1)) for _ in range(3)]

for step, (x, y) in enumerate(data):
    optimizer.zero_grad()
    x.requires_grad_(True)
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward(retain_graph=True)
    penalty = x.grad.pow(2).sum()
    (loss + lam * penalty).backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.3f}, penalty {penalty:.4f}")
