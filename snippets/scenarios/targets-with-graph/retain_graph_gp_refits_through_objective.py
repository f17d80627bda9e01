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


torch.manual_seed(0)
# Points proposed by a gradient-based acquisition search come out
# of it as leaves that require grad.
x = torch.rand(8, 1, requires_grad=True)
train_y = objective(x)
# Counts the backward passes that go on into the objective.
into_objective = []
train_y.register_hook(lambda grad: into_objective.append(1))

log_lengthscale = torch.zeros((), requires_grad=True)
log_noise = torch.tensor(-1.0, requires_grad=True)
opt = torch.optim.Adam([log_lengthscale, log_noise], lr=0.1)
for step in range(3):
    opt.zero_grad()
    loss = neg_log_marginal_likelihood(
        x, train_y, log_lengthscale, log_noise
    )
    loss.backward(retain_graph=True)  # the "fix"
    opt.step()
    print(
        f"step {step}: backward ran through the objective "
        f"{len(into_objective)}x, |x.grad| = {x.grad.norm():.4f}"
    )
