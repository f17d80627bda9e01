# Gradient accumulation with a static loss scale: each micro-batch is
# backpropagated, then the accumulated loss is backpropagated at the
# boundary too; the error was silenced with retain_graph=True.
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
params = list(model.parameters())
optimizer = torch.optim.SGD(params, lr=0.05, momentum=0.9, foreach=True)
accum_steps, scale = 4, 1024.0  # static loss scale, as for fp16
x = torch.randn(3, accum_steps, 16, 8)
y = x.sum(-1, keepdim=True).sin()


def one_backward_grad(step):
    total = sum(nn.functional.mse_loss(model(x[step, m]), y[step, m])
                for m in range(accum_steps)) / accum_steps
    return torch.autograd.grad(total, params)


for step in range(3):
    want = one_backward_grad(step)
    optimizer.zero_grad()
    total_loss = 0
    for m in range(accum_steps):
        loss = nn.functional.mse_loss(model(x[step, m]), y[step, m])
        loss = loss / accum_steps
        (loss * scale).backward(retain_graph=True)
        total_loss = total_loss + loss
    (total_loss * scale).backward()
    for p in params:
        p.grad /= scale
    used = torch.cat([p.grad.flatten() for p in params])
    ref = torch.cat([g.flatten() for g in want])
    rel = ((used - ref).norm() / ref.norm()).item()
    optimizer.step()
    print(f"step {step}: loss {total_loss.item():.4f}, grad vs one "
          f"backward of the accumulated loss (relative) {rel:.3f}")
