import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, target = torch.randn(32, 4), torch.randn(32, 1)


@torch.compile(backend="aot_eager")
def compute_loss(x, target):
    return nn.functional.mse_loss(model(x), target)


for step in range(3):
    loss = compute_loss(x, target)  # a new compiled node every call
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss = {loss.item():.4f}")
