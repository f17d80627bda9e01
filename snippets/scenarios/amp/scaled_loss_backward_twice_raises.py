import torch
from torch import nn

torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
head_a, head_b = nn.Linear(8, 1), nn.Linear(8, 1)
modules = nn.ModuleList([trunk, head_a, head_b])
opt = torch.optim.SGD(modules.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
x, y = torch.randn(16, 4), torch.randn(16, 1)

opt.zero_grad()
with torch.autocast("cpu", dtype=torch.bfloat16):
    h = trunk(x)
    loss_a = nn.functional.mse_loss(head_a(h), y)
    loss_b = head_b(h).abs().mean()
scaler.scale(loss_a).backward()
print("loss_a backpropagated")
scaler.scale(loss_b).backward()  # reaches the trunk's freed graph
