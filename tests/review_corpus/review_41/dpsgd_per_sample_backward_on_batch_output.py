# written
# DP-SGD by hand: per-sample gradients are clipped to norm C, summed, noised and averaged.
# One forward on the batch, then one backward per sample loss to get that sample's gradient.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(20, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2))
params = list(model.parameters())
X, Y = torch.randn(256, 20), torch.randint(0, 2, (256,))
lr, C, sigma, B = 0.1, 1.0, 1.0, 16

for step in range(3):
    idx = torch.randint(0, 256, (B,))
    out = model(X[idx])
    losses = F.cross_entropy(out, Y[idx], reduction="none")
    summed = [torch.zeros_like(p) for p in params]
    for i in range(B):
        model.zero_grad()
        losses[i].backward()  # gradient of sample i only
        gnorm = torch.sqrt(sum((p.grad**2).sum() for p in params))
        factor = (C / (gnorm + 1e-6)).clamp(max=1.0)
        for s, p in zip(summed, params):
            s += p.grad * factor
    with torch.no_grad():
        for s, p in zip(summed, params):
            p -= lr * (s + sigma * C * torch.randn_like(s)) / B
    print(step, losses.mean().item())
