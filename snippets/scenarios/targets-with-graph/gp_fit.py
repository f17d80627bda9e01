"""gp_fit.py: the black-box objective and a GP's negative log marginal
likelihood (RBF kernel, Cholesky solve, 1-D inputs), in plain PyTorch.
The scripts of the Gaussian process section import them from here.
"""

import math

import torch


def objective(x):
    """The black box. Written in torch, so it records a graph."""
    return torch.sin(3 * x) + 0.5 * x


def neg_log_marginal_likelihood(x, y, log_lengthscale, log_noise):
    """GP with an RBF kernel: -log p(y | x), for 1-D inputs."""
    n = x.shape[0]
    sq_dist = (x - x.T) ** 2
    k = torch.exp(-0.5 * sq_dist / torch.exp(2 * log_lengthscale))
    k = k + torch.exp(2 * log_noise) * torch.eye(n)
    chol = torch.linalg.cholesky(k)
    alpha = torch.cholesky_solve(y, chol)
    return (
        0.5 * (y * alpha).sum()
        + chol.diagonal().log().sum()
        + 0.5 * n * math.log(2 * math.pi)
    )


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.rand(8, 1)
    nlml = neg_log_marginal_likelihood(
        x, objective(x), torch.zeros(()), torch.tensor(-1.0)
    )
    print(f"-log marginal likelihood at the start: {nlml.item():.4f}")
