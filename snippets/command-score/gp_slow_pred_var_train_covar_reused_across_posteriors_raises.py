"""GPyTorch's exact posterior without fast_pred_var: the train x train
covariance the prediction strategy keeps, reused by every posterior.

Source: https://github.com/cornellius-gp/gpytorch/issues/554
The user (a BoTorch developer) evaluated a fitted GP's posterior again
and again at candidate points, drew samples from it with the same
base samples each time, and backpropagated an acquisition value to
the candidates. With detach_test_caches and fast_pred_var on it ran;
with fast_pred_var off, the second backward raised this error.
jacobrgardner's fix (pull request 566, then a hotfix) detaches the
noisy train covariance in the slow variance path when
detach_test_caches is on. Kept: ExactGP.__call__ in posterior mode
(the prior on train and test points together, the prediction strategy
built once from the evaluated train x train kernel and kept on the
model), DefaultPredictionStrategy (mean_cache, detached as
detach_test_caches asks; exact_predictive_mean; exact_predictive_covar
with fast_pred_var off: the likelihood adds the noise to the stored
train covariance, then inv_matmul), and BoTorch's rsample with fixed
base samples feeding a qEI-style acquisition; changed: lazy tensors
became dense tensors (torch.linalg.solve for inv_matmul), an RBF
kernel, a constant mean and a Gaussian likelihood written out, 8
training points in 1-d, 3 Adam steps on 2 candidates, no fitting (the
hyperparameters are as initialized).
"""

import math

import torch
from torch import nn

torch.manual_seed(0)
detach_test_caches = True  # gpytorch.settings.detach_test_caches
fast_pred_var = False  # gpytorch.settings.fast_pred_var


class GaussianLikelihood(nn.Module):
    def __init__(self):
        super().__init__()
        self.raw_noise = nn.Parameter(torch.tensor(-3.0))

    def forward(self, mean, covar):
        noise = nn.functional.softplus(self.raw_noise)
        eye = torch.eye(covar.size(-1))
        return mean, covar + noise * eye


class DefaultPredictionStrategy:
    def __init__(
        self,
        train_inputs,
        train_mean,
        train_train_covar,
        train_labels,
        lik,
    ):
        self.train_inputs = train_inputs
        self.train_mean = train_mean
        self.train_train_covar = train_train_covar
        self.train_labels = train_labels
        self.likelihood = lik
        self._mean_cache = None

    @property
    def mean_cache(self):
        if self._mean_cache is None:
            train_mean, train_train_covar = self.likelihood(
                self.train_mean, self.train_train_covar
            )
            offset = self.train_labels - train_mean
            mean_cache = torch.linalg.solve(train_train_covar, offset)
            if detach_test_caches:
                mean_cache = mean_cache.detach()
            self._mean_cache = mean_cache
        return self._mean_cache

    def exact_predictive_mean(self, test_mean, test_train_covar):
        return test_train_covar.matmul(self.mean_cache) + test_mean

    def exact_predictive_covar(self, test_test_covar, test_train_covar):
        if not fast_pred_var:
            _, train_train_covar = self.likelihood(
                torch.zeros(1), self.train_train_covar
            )
            train_test_covar = test_train_covar.transpose(-1, -2)
            covar_correction_rhs = torch.linalg.solve(
                train_train_covar, train_test_covar
            ).mul(-1)
            return test_test_covar + test_train_covar.matmul(
                covar_correction_rhs
            )
        raise NotImplementedError


class ExactGPModel(nn.Module):
    def __init__(self, train_x, train_y):
        super().__init__()
        self.train_inputs = train_x
        self.train_targets = train_y
        self.likelihood = GaussianLikelihood()
        self.constant = nn.Parameter(torch.tensor(0.0))  # ConstantMean
        self.raw_lengthscale = nn.Parameter(torch.tensor(-1.0))  # RBF
        self.prediction_strategy = None

    def forward(self, x):
        mean_x = self.constant.expand(x.size(0))
        lengthscale = nn.functional.softplus(self.raw_lengthscale)
        x_ = x / lengthscale
        covar_x = torch.exp(-0.5 * torch.cdist(x_, x_) ** 2)
        return mean_x, covar_x

    def __call__(self, x):
        # ExactGP.__call__, posterior mode
        full_inputs = torch.cat([self.train_inputs, x], dim=-2)
        full_mean, full_covar = self.forward(full_inputs)
        num_train = self.train_targets.size(-1)
        train_mean = full_mean[:num_train]
        if self.prediction_strategy is None:
            # evaluate_kernel() of the lazy train x train slice: the
            # kernel on the train inputs alone
            train_train_covar = self.forward(self.train_inputs)[1]
            self.prediction_strategy = DefaultPredictionStrategy(
                self.train_inputs,
                train_mean,
                train_train_covar,
                self.train_targets,
                self.likelihood,
            )
        test_mean = full_mean[num_train:]
        test_test_covar = full_covar[num_train:, num_train:]
        test_train_covar = full_covar[num_train:, :num_train]
        strategy = self.prediction_strategy
        predictive_mean = strategy.exact_predictive_mean(
            test_mean, test_train_covar
        )
        predictive_covar = strategy.exact_predictive_covar(
            test_test_covar, test_train_covar
        )
        return predictive_mean, predictive_covar


def rsample(mean, covar, base_samples):
    # GPyTorchPosterior.rsample with base_samples
    jitter = 1e-6 * torch.eye(covar.size(-1))
    chol = torch.linalg.cholesky(covar + jitter)
    return mean + base_samples.matmul(chol.transpose(-1, -2))


def q_expected_improvement(model, X, base_samples, best_f):
    mean, covar = model(X)
    samples = rsample(mean, covar, base_samples)
    improvement = (samples - best_f).clamp_min(0)
    return improvement.max(dim=-1).values.mean()


train_x = torch.rand(8, 1)
train_y = torch.sin(2 * math.pi * train_x).squeeze(-1)
model = ExactGPModel(train_x, train_y)
model.eval()
base_samples = torch.randn(16, 2)  # fixed, as a QMC sampler keeps
best_f = train_y.max()

X = torch.rand(2, 1).requires_grad_()
optimizer = torch.optim.Adam([X], lr=0.05)
for i in range(3):
    optimizer.zero_grad()
    loss = -q_expected_improvement(model, X, base_samples, best_f)
    loss.backward()
    optimizer.step()
    print(f"step {i}: qEI {-loss.item():.4f}")
