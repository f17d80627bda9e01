# Catalyst's OptimizerCallback under AMP (GradScaler, bf16 autocast on
# CPU) with gradient accumulation: each batch's scaled loss goes
# backward; every 4 batches scaler.unscale_(optimizer), one clip of
# the accumulated gradients, and the scaler's step.
# https://github.com/catalyst-team/catalyst/issues/1319
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils import clip_grad_norm_

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scaler = torch.amp.GradScaler("cpu")
print(f"scaler enabled {scaler.is_enabled()}, "
      f"scale {scaler.get_scale():.0f}")
accumulation_steps = 4
w = torch.randn(10, 1)
x = torch.randn(24, 16, 10)
y = x @ w + 0.1 * torch.randn(24, 16, 1)
losses = []
for batch in range(24):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        pred = model(x[batch])
    loss = F.mse_loss(pred.float(), y[batch]) / accumulation_steps
    scaler.scale(loss).backward()
    losses.append(loss.item() * accumulation_steps)
    if (batch + 1) % accumulation_steps == 0:
        scaler.unscale_(optimizer)
        clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        used = torch.cat([p.grad.flatten() for p in model.parameters()])
        optimizer.zero_grad()
        print(f"step {batch // accumulation_steps}: loss "
              f"{sum(losses) / len(losses):.4f}, gradient norm the "
              f"step used {used.norm().item():.3g}")
        losses = []
