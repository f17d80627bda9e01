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
scaled = grad_norm(model)
scaled_grads = [p.grad.clone() for p in model.parameters()]
scale = scaler.get_scale()
print(f"scale = {scale:.0f}")

scaler.unscale_(opt)  # divides the .grad of opt's parameters in place
print(
    f"grad norm: {scaled:.1f} scaled, {grad_norm(model):.4f} unscaled"
)
print(f"ratio = {scaled / grad_norm(model):.0f}")
exact = all(
    torch.equal(s, p.grad * scale)
    for s, p in zip(scaled_grads, model.parameters())
)
print(f"scaled .grad == scale * unscaled .grad: {exact}")
torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
scaler.step(opt)  # knows unscale_ was called: does not divide again
scaler.update()
print(f"norm of the gradient the step applied: {grad_norm(model):.4f}")
