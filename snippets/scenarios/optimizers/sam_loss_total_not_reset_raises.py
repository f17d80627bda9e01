import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(16, 3)
y = x @ torch.tensor([[1.0, 0.5], [-2.0, 0.0], [0.5, 1.0]])
model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
params = list(model.parameters())
rho = 0.05

# Pass 1: one loss per task (output column), summed.
output = model(x)
loss = 0
for t in range(2):
    loss += nn.functional.mse_loss(output[:, t], y[:, t])
loss.backward()
with torch.no_grad():
    norm = torch.cat([p.grad.flatten() for p in params]).norm()
    eps = [rho * p.grad / norm for p in params]
    for p, e in zip(params, eps):
        p.add_(e)
opt.zero_grad()
print(f"pass 1 done, loss = {loss.item():.4f}")

# Pass 2: a fresh forward, as it should be...
output = model(x)
for t in range(2):
    # ...but the total still holds pass 1's loss and its graph.
    loss += nn.functional.mse_loss(output[:, t], y[:, t])
loss.backward()
