import torch
from torch import nn


def grad_norm(model, loss):
    """The gradient norm, for the training log."""
    model.zero_grad()
    loss.backward()  # the first backward through this step's graph
    grads = [p.grad.flatten() for p in model.parameters()]
    return torch.cat(grads).norm().item()


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(32, 4), torch.randn(32, 1)

for step in range(3):
    loss = nn.functional.mse_loss(model(x), y)
    norm = grad_norm(model, loss)
    print(f"step {step}: loss {loss.item():.4f}, |grad| {norm:.4f}")
    opt.zero_grad()
    loss.backward()  # the second: the graph was freed by the first
    opt.step()
