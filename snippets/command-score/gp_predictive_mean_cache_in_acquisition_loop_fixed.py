# https://github.com/cornellius-gp/gpytorch/pull/228
# A faithful reduction of gpytorch's ExactGP.__call__ in eval mode
# (exact_predictive_mean stores its precomputed_cache in
# self.mean_cache; exact_predictive_covar without fast_pred_var keeps no
# cache), driven by the PR's expected-improvement loop.
import math

import torch
from torch import nn

torch.manual_seed(0)


class ExactGPModel(nn.Module):
    def __init__(self, train_x, train_y):
        super().__init__()
        self.train_inputs, self.train_targets = train_x, train_y
        self.constant = nn.Parameter(torch.zeros(1))  # ConstantMean
        self.raw_lengthscale = nn.Parameter(torch.zeros(1))  # RBFKernel
        self.raw_noise = nn.Parameter(
            torch.tensor([-2.0])
        )  # GaussianLikelihood
        self.mean_cache = None
        self.covar_cache = None

    def train(self, mode=True):
        if mode:
            self.mean_cache = None
            self.covar_cache = None
        return super().train(mode)

    def forward(self, x):
        mean_x = self.constant.expand(x.size(0))
        lengthscale = nn.functional.softplus(self.raw_lengthscale)
        covar_x = torch.exp(
            -0.5 * torch.cdist(x / lengthscale, x / lengthscale) ** 2
        )
        return mean_x, covar_x

    def __call__(self, x):
        # gpytorch.models.ExactGP.__call__, eval mode
        n_train = self.train_inputs.size(0)
        full_inputs = torch.cat([self.train_inputs, x])
        full_mean, full_covar = self.forward(full_inputs)
        noise = nn.functional.softplus(self.raw_noise)
        eye = torch.eye(n_train)
        # exact_predictive_mean
        precomputed_cache = self.mean_cache
        if precomputed_cache is None:
            train_train_covar = (
                full_covar[:n_train, :n_train] + noise * eye
            )
            train_labels_offset = (
                self.train_targets - full_mean[:n_train]
            )
            precomputed_cache = torch.linalg.solve(
                train_train_covar, train_labels_offset
            )  # inv_matmul
        test_train_covar = full_covar[n_train:, :n_train]
        predictive_mean = (
            test_train_covar.matmul(precomputed_cache)
            + full_mean[n_train:]
        )
        mean_cache = (
            precomputed_cache.detach()
        )  # the fix (gpytorch PR #228): a test-time cache is a constant
        # exact_predictive_covar, fast_pred_var off: no cache
        train_train_covar = full_covar[:n_train, :n_train] + noise * eye
        covar_correction_rhs = torch.linalg.solve(
            train_train_covar, test_train_covar.transpose(-1, -2)
        ).mul(-1)
        predictive_covar = full_covar[
            n_train:, n_train:
        ] + test_train_covar.matmul(covar_correction_rhs)
        self.mean_cache = mean_cache
        return predictive_mean, predictive_covar


def batch_expected_improvement(x, model, best_f):
    mean, covar = model(x.view(-1, 1))
    sigma = covar.diagonal().clamp_min(1e-9).sqrt()
    u = (mean - best_f) / sigma
    normal = torch.distributions.Normal(0.0, 1.0)
    ei = sigma * (torch.exp(normal.log_prob(u)) + u * normal.cdf(u))
    return ei.sum()


train_x = torch.linspace(0, 1, 6).view(-1, 1)
train_y = torch.sin(train_x.view(-1) * (2 * math.pi))
model = ExactGPModel(train_x, train_y)
model.eval()

x = torch.tensor([0.25], requires_grad=True)
optimizer = torch.optim.Adam([x], lr=0.1)
for i in range(5):
    optimizer.zero_grad()
    loss = -batch_expected_improvement(x, model, 0)
    print(f"Iter {i}, loss = {loss.item():.3f}, x = {x.item():.3f}")
    loss.backward()
    with torch.no_grad():
        n = train_x.size(0)
        _, K = model.forward(train_x)
        fresh = torch.linalg.solve(
            K + nn.functional.softplus(model.raw_noise) * torch.eye(n),
            train_y - model.constant,
        )
    print(
        f"  x.grad = {x.grad.item():.3f}, "
        "mean_cache equals a fresh solve: "
        f"{torch.allclose(model.mean_cache, fresh)}"
    )
    optimizer.step()
