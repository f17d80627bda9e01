import torch
from torch import nn

torch.manual_seed(0)


class ScaledLinear(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.linear = nn.Linear(features, features)
        self.scale = torch.ones(
            features, requires_grad=True
        )  # a learned per-feature gain
        self.gain = self.scale * 2  # the gain starts at 2

    def forward(self, x):
        return self.linear(x) * self.gain


model = nn.Sequential(ScaledLinear(4), nn.Tanh(), nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(32, 4), torch.randn(32, 1)

for step in range(3):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.3f}")
