import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(16, 3)
y = x @ torch.tensor([[1.0, 0.5], [-2.0, 0.0], [0.5, 1.0]])
model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
params = list(model.parameters())
rho = 0.05

output = model(x)
# Pass 1 at the weights w: which way does the loss rise fastest?
loss = nn.functional.mse_loss(output, y)
loss.backward()
with torch.no_grad():
    norm = torch.cat([p.grad.flatten() for p in params]).norm()
    eps = [rho * p.grad / norm for p in params]
    for p, e in zip(params, eps):
        p.add_(e)  # climb to w + e
opt.zero_grad()
print(f"pass 1 done, loss = {loss.item():.4f}")

# Pass 2 should take the gradient at w + e, but reuses pass 1's
# output, whose graph pass 1's backward has freed.
nn.functional.mse_loss(output, y).backward()
