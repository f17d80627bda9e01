# A training loop written for optimizers that take a closure.
import torch
from torch import nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
x = torch.randn(40, 5)
y = x[:, :1] * 2 - x[:, 1:2]


def closure():
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward(retain_graph=True)
    return loss


for epoch in range(5):
    loss = closure()
    loss.backward()
    optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.3f}")
