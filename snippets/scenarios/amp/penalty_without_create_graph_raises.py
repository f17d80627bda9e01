import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
x, y = torch.randn(16, 4), torch.randn(16, 1)
params = list(model.parameters())

opt.zero_grad()
with torch.autocast("cpu", dtype=torch.bfloat16):
    loss = nn.functional.mse_loss(model(x), y)
# Without create_graph=True this is a plain backward pass: it frees
# the graph of loss, and the gradients it returns have no graph.
scaled_grads = torch.autograd.grad(scaler.scale(loss), params)
inv_scale = 1.0 / scaler.get_scale()
with torch.autocast("cpu", dtype=torch.bfloat16):
    penalty = sum((g * inv_scale).pow(2).sum() for g in scaled_grads)
print(f"penalty.requires_grad = {penalty.requires_grad}")
scaler.scale(loss + penalty.sqrt()).backward()
