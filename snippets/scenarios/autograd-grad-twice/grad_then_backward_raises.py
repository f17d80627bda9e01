import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(16, 4), torch.randn(16, 1)
loss = nn.functional.mse_loss(model(x), y)

# The gradient norm, for the log: autograd.grad frees the graph too.
grads = torch.autograd.grad(loss, list(model.parameters()))
norm = torch.cat([g.flatten() for g in grads]).norm()
print(f"gradient norm: {norm:.4f}")

loss.backward()  # needs the saved tensors the grad call just freed
opt.step()
