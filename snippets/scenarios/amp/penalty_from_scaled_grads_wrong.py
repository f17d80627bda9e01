import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
x, y = torch.randn(16, 4), torch.randn(16, 1)
params = list(model.parameters())

with torch.autocast("cpu", dtype=torch.bfloat16):
    loss = nn.functional.mse_loss(model(x), y)
scaled_grads = torch.autograd.grad(
    scaler.scale(loss), params, create_graph=True
)
inv_scale = 1.0 / scaler.get_scale()
with torch.autocast("cpu", dtype=torch.bfloat16):
    # The scaled gradients used as they are: no multiplication by
    # inv_scale.
    penalty = sum(g.pow(2).sum() for g in scaled_grads).sqrt()
    meant = sum((g * inv_scale).pow(2).sum() for g in scaled_grads)
    meant = meant.sqrt()
print(f"loss = {loss:.4f}, penalty = {penalty:.1f}")
print(f"penalty / intended penalty = {penalty / meant:.0f}")
# The step trains on that penalty: it swamps the loss.
scaler.scale(loss + penalty).backward()
scaler.step(opt)
scaler.update()
