import torch
from torch import nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(10, 32), nn.GELU(), nn.Linear(32, 1))
opt = torch.optim.AdamW(model.parameters(), lr=1e-2, fused=True)
batches = [(torch.randn(16, 10), torch.randn(16, 1)) for _ in range(3)]
INNER = 4  # a few updates per batch

for i, (x, y) in enumerate(batches):
    for k in range(INNER):
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"batch {i}: loss {loss.item():.3f}")
