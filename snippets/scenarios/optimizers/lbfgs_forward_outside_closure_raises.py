import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(16, 3)
y = x @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.3
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
opt = torch.optim.LBFGS(model.parameters())

# One forward per step, as a loop written for SGD or Adam has it.
loss = nn.functional.mse_loss(model(x), y)


def closure():
    opt.zero_grad()
    loss.backward()
    print(f"closure called, loss = {loss.item():.4f}")
    return loss


opt.step(closure)  # LBFGS calls closure() again inside step()
