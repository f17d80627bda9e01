import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)


class UncertaintyWeighting(nn.Module):
    """Kendall et al.: sum exp(-s_i) L_i + s_i, s_i = log sigma_i^2."""

    def __init__(self, tasks):
        super().__init__()
        self.log_vars = nn.Parameter(torch.zeros(tasks))
        self.precision = torch.exp(-self.log_vars)  # made once

    def forward(self, losses):
        return (self.precision * losses + self.log_vars).sum()


trunk = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 16))
head_a, head_b = nn.Linear(16, 1), nn.Linear(16, 1)
balance = UncertaintyWeighting(2)
modules = nn.ModuleList([trunk, head_a, head_b, balance])
opt = torch.optim.Adam(modules.parameters(), lr=0.05)
x, y_a, y_b = torch.randn(32, 8), torch.randn(32, 1), torch.randn(32, 1)

for step in range(4):
    features = trunk(x)
    losses = torch.stack(
        [
            F.mse_loss(head_a(features), y_a),
            F.mse_loss(head_b(features), y_b),
        ]
    )
    opt.zero_grad()
    balance(losses).backward()
    opt.step()
    s = balance.log_vars
    print(f"step {step}: log variances {s[0]:.4f}, {s[1]:.4f}")
