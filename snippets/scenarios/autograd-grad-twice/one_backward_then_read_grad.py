import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(16, 4), torch.randn(16, 1)
loss = nn.functional.mse_loss(model(x), y)

# One backward; the log reads the gradients it left in .grad.
loss.backward()
grads = [p.grad.flatten() for p in model.parameters()]
print(f"gradient norm: {torch.cat(grads).norm():.4f}")
opt.step()
