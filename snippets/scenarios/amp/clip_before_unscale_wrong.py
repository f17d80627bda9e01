import torch
from torch import nn


def grad_norm(model):
    grads = [p.grad for p in model.parameters()]
    return torch.nn.utils.get_total_norm(grads).item()


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
x, y = torch.randn(16, 4), torch.randn(16, 1)

opt.zero_grad()
with torch.autocast("cpu", dtype=torch.bfloat16):
    loss = nn.functional.mse_loss(model(x), y)
scaler.scale(loss).backward()
# Clipping (and logging) the scaled gradients: no unscale_ first.
total = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
print(f"grad norm logged: {total:.1f}")
scaler.step(opt)  # unscales the already clipped gradients
scaler.update()
print(f"norm of the gradient the step applied: {grad_norm(model):.8f}")
