# A classifier trained with a gradient-norm penalty (the loss plus
# the norm of its gradient with respect to the parameters) under AMP
# (GradScaler, bf16 autocast on CPU), as the AMP examples page
# writes it: torch.autograd.grad(scaler.scale(loss), params,
# create_graph=True), each gradient multiplied by
# 1 / scaler.get_scale() before the penalty.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 4))
params = list(model.parameters())
optimizer = torch.optim.SGD(params, lr=0.05, momentum=0.9)
scaler = torch.amp.GradScaler("cpu")
print(f"scaler enabled {scaler.is_enabled()}, "
      f"scale {scaler.get_scale():.0f}")
protos = torch.randn(4, 8)
y = torch.randint(4, (8, 64))
x = protos[y] + 0.7 * torch.randn(8, 64, 8)
for step in range(8):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(x[step])
    loss = F.cross_entropy(logits.float(), y[step])
    grad_params = torch.autograd.grad(scaler.scale(loss), params,
                                      create_graph=True)
    inv_scale = 1.0 / scaler.get_scale()
    grad_params = [p * inv_scale for p in grad_params]
    with torch.autocast("cpu", dtype=torch.bfloat16):
        grad_norm = 0
        for grad in grad_params:
            grad_norm += grad.pow(2).sum()
        grad_norm = grad_norm.sqrt()
        total = loss + 0.1 * grad_norm
    ref = torch.autograd.grad(
        F.cross_entropy(model(x[step]), y[step]), params)
    true_norm = torch.cat([g.flatten() for g in ref]).norm()
    optimizer.zero_grad()
    scaler.scale(total).backward()
    scaler.step(optimizer)
    scaler.update()
    print(f"step {step}: loss {loss.item():.4f}, gradient norm in "
          f"the penalty {grad_norm.item():.4g}, the loss's gradient "
          f"norm {true_norm.item():.4g}")
