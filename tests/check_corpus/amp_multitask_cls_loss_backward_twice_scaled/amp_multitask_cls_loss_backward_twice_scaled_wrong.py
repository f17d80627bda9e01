# Reduced from a mixed-precision model with two losses sharing a sub-graph, each scaled and
# backpropagated on its own (github.com/NVIDIA/apex/issues/934), here with torch.autocast on CPU.
# Wrong fix: retain_graph=True on the first backward, then backward of the summed loss.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
enc = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU())
head_cls, head_reg = nn.Linear(32, 4), nn.Linear(32, 1)
params = [*enc.parameters(), *head_cls.parameters(), *head_reg.parameters()]
opt = torch.optim.SGD(params, lr=0.05)
scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 8)
X = torch.randn(20, 32, 16)
Y = (X[..., :4].argmax(-1))
Tg = X[..., 4:8].sum(-1)

for epoch in range(3):
    for x, y, t in zip(X, Y, Tg):
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            h = enc(x)
            loss_cls = F.cross_entropy(head_cls(h).float(), y)
            loss_reg = F.mse_loss(head_reg(h).float().squeeze(-1), t)
        scaler.scale(loss_cls).backward(retain_graph=True)
        scaler.scale(loss_cls + loss_reg).backward()
        scaler.step(opt)
        scaler.update()
print(f"final cls {loss_cls.item():.4f} reg {loss_reg.item():.4f}")
