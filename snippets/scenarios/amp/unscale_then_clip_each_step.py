import torch
from torch import nn
from torch.nn.utils import clip_grad_norm_

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
x, y = torch.randn(16, 4), torch.randn(16, 1)

for step in range(3):
    opt.zero_grad()
    # --8<-- [start:fix]
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = nn.functional.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(opt)  # .grad now holds the real gradients
    norm = clip_grad_norm_(model.parameters(), max_norm=0.5)
    scaler.step(opt)  # knows unscale_ was called: does not divide again
    scaler.update()
    # --8<-- [end:fix]
    print(f"step {step}: loss {loss.item():.4f}, grad norm {norm:.4f}")
