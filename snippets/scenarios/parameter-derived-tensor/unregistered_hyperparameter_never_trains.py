import math

import torch
from torch import nn


class GP(nn.Module):
    """Exact GP regression with an RBF kernel, for 1-D inputs."""

    def __init__(self, x, y, register):
        super().__init__()
        self.x, self.y = x, y
        self.log_lengthscale = nn.Parameter(torch.zeros(()))
        log_noise = torch.tensor(-1.0)
        if register:
            self.log_noise = nn.Parameter(log_noise)
        else:  # requires grad, but is not a parameter of the module
            self.log_noise = log_noise.requires_grad_()

    def forward(self):
        """The negative log marginal likelihood of the data."""
        n = self.x.shape[0]
        scale = torch.exp(2 * self.log_lengthscale)
        k = torch.exp(-0.5 * (self.x - self.x.T) ** 2 / scale)
        k = k + torch.exp(2 * self.log_noise) * torch.eye(n)
        chol = torch.linalg.cholesky(k)
        alpha = torch.cholesky_solve(self.y, chol)
        return (
            0.5 * (self.y * alpha).sum()
            + chol.diagonal().log().sum()
            + 0.5 * n * math.log(2 * math.pi)
        )


torch.manual_seed(0)
x = torch.rand(8, 1)
y = torch.sin(3 * x) + 0.5 * x
for register in (False, True):
    gp = GP(x, y, register)
    opt = torch.optim.Adam(gp.parameters(), lr=0.1)
    losses = []
    for step in range(3):
        opt.zero_grad()
        loss = gp()
        loss.backward()
        opt.step()
        losses.append(f"{loss.item():.4f}")
    opt.zero_grad()
    names = [name for name, _ in gp.named_parameters()]
    print(f"nn.Parameter: {register}, gp.parameters(): {names}")
    print(f"    losses {' '.join(losses)}")
    noise = gp.log_noise.exp().item()
    print(
        f"    noise {math.exp(-1):.4f} -> {noise:.4f}, "
        f"its .grad cleared by zero_grad(): {gp.log_noise.grad is None}"
    )
