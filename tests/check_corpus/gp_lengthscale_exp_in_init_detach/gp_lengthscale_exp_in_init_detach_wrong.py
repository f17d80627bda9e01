# A spatio-temporal GP's squared-exponential kernel (MiniGP style),
# hyperparameters fitted by the negative log marginal likelihood.
import math

import torch
from torch import nn

torch.manual_seed(0)


class SEKernel(nn.Module):
    def __init__(self, length_scale=1.0):
        super().__init__()
        self.log_length_scale = nn.Parameter(
            torch.tensor(length_scale).log()
        )
        self.length_scale = self.log_length_scale.exp().detach()

    def forward(self, a, b):
        d2 = torch.cdist(a / self.length_scale, b / self.length_scale)
        return torch.exp(-0.5 * d2**2)


class GP(nn.Module):
    def __init__(self):
        super().__init__()
        self.kernel = SEKernel(0.3)
        self.log_noise = nn.Parameter(torch.tensor(0.1).log())

    def nll(self, x, y):
        K = self.kernel(x, x) + self.log_noise.exp() * torch.eye(len(x))
        L = torch.linalg.cholesky(K)
        alpha = torch.cholesky_solve(y, L)
        n = len(x)
        return (
            0.5 * (y * alpha).sum()
            + L.diagonal().log().sum()
            + 0.5 * n * math.log(2 * math.pi)
        )


x = torch.rand(30, 2)
y = torch.sin(3 * x[:, :1]) + 0.1 * torch.randn(30, 1)
gp = GP()
opt = torch.optim.Adam(gp.parameters(), lr=0.05)
for it in range(5):
    opt.zero_grad()
    loss = gp.nll(x, y)
    loss.backward()
    opt.step()
print(f"nll {loss.item():.3f}, noise {gp.log_noise.exp().item():.3f}")
