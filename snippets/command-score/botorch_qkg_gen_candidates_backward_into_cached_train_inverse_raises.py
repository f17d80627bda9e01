"""BoTorch's gen_candidates_torch on qKnowledgeGradient: loss.backward()
runs into the train covariance's inverse the GP caches once.

Source: https://github.com/meta-pytorch/botorch/issues/765
The user (a BoTorch developer) optimized one-shot qKnowledgeGradient
on a fitted SingleTaskGP with gen_candidates_torch (Adam on the
candidates), which raised this error at its second iteration; the
same loop on qExpectedImprovement ran. wjmaddox's fix (pull request
766) takes `torch.autograd.grad(loss, candidates)` in the closure
instead of `loss.backward()`, "backprop only wrt candidates like what
occurs in gen_candidates_scipy". Kept: ExactGP's posterior mode (the
prediction strategy built once from the train x train prior and kept
on the model, its lik_train_train_covar with the noise added, the
mean cache detached as detach_test_caches asks),
get_fantasy_strategy's bordered solve (the root inverse of
lik_train_train_covar, cached on it the first time, times the
fantasy x train covariance; the Schur complement; the new mean
cache), fantasize (posterior samples at X_actual from fixed base
samples, with observation noise), qKnowledgeGradient.forward (split
the candidates into X_actual and X_fantasies, the fantasy model's
posterior mean at X_fantasies, averaged over fantasies) and
gen_candidates_torch's loop (Adam on the candidates, the closure with
zero_grad and loss.backward(), the step); changed: lazy tensors
became dense (cholesky_inverse for root_inv_decomposition), an RBF
kernel and a constant mean written out, 8 training points in 1-d, 4
fantasies, 3 iterations, no bounds clamping, no fitting.
"""

import math

import torch
from torch import nn

torch.manual_seed(0)
detach_test_caches = True


class DefaultPredictionStrategy:
    def __init__(
        self, train_mean, train_train_covar, train_labels, noise
    ):
        self.train_mean = train_mean
        self.train_train_covar = train_train_covar
        self.train_labels = train_labels
        eye = torch.eye(train_train_covar.size(-1))
        self.lik_train_train_covar = train_train_covar + noise * eye
        self._root_inv = None
        self._mean_cache = None

    def root_inv_decomposition(self):
        # memoized on lik_train_train_covar, as gpytorch's @cached
        if self._root_inv is None:
            chol = torch.linalg.cholesky(self.lik_train_train_covar)
            self._root_inv = torch.cholesky_inverse(chol)
        return self._root_inv

    @property
    def mean_cache(self):
        if self._mean_cache is None:
            offset = (self.train_labels - self.train_mean).unsqueeze(-1)
            mean_cache = torch.linalg.solve(
                self.lik_train_train_covar, offset
            ).squeeze(-1)
            if detach_test_caches:
                mean_cache = mean_cache.detach()
            self._mean_cache = mean_cache
        return self._mean_cache

    def get_fantasy_mean_cache(
        self, targets, fant_mean, full_covar, noise
    ):
        num_train = self.train_labels.size(-1)
        fant_fant_covar = full_covar[num_train:, num_train:]
        fant_fant_covar = fant_fant_covar + noise * torch.eye(
            fant_fant_covar.size(-1)
        )
        fant_train_covar = full_covar[num_train:, :num_train]
        K_inverse = self.root_inv_decomposition()
        fant_solve = K_inverse.matmul(
            fant_train_covar.transpose(-2, -1)
        )
        schur_complement = fant_fant_covar - fant_train_covar.matmul(
            fant_solve
        )
        small_system_rhs = (
            targets
            - fant_mean
            - fant_train_covar.matmul(self.mean_cache)
        ).unsqueeze(-1)
        schur_cholesky = torch.linalg.cholesky(schur_complement)
        fant_cache_lower = torch.cholesky_solve(
            small_system_rhs, schur_cholesky
        )
        fant_cache_upper = self.mean_cache.unsqueeze(
            -1
        ) - fant_solve.matmul(fant_cache_lower)
        return torch.cat(
            [fant_cache_upper, fant_cache_lower], dim=-2
        ).squeeze(-1)


class SingleTaskGP(nn.Module):
    def __init__(self, train_X, train_Y):
        super().__init__()
        self.train_inputs, self.train_targets = train_X, train_Y
        self.constant = nn.Parameter(torch.tensor(0.0))
        self.raw_lengthscale = nn.Parameter(torch.tensor(-1.0))
        self.raw_noise = nn.Parameter(torch.tensor(-3.0))
        self.prediction_strategy = None

    def noise(self):
        return nn.functional.softplus(self.raw_noise)

    def forward(self, x):
        lengthscale = nn.functional.softplus(self.raw_lengthscale)
        x_ = x / lengthscale
        covar = torch.exp(-0.5 * torch.cdist(x_, x_) ** 2)
        return self.constant.expand(x.size(0)), covar

    def posterior(self, X, observation_noise=False):
        # ExactGP.__call__ in posterior mode
        num_train = self.train_targets.size(-1)
        full_mean, full_covar = self.forward(
            torch.cat([self.train_inputs, X])
        )
        if self.prediction_strategy is None:
            self.prediction_strategy = DefaultPredictionStrategy(
                full_mean[:num_train],
                # evaluate_kernel() of the lazy train x train slice:
                # the kernel on the train inputs alone
                self.forward(self.train_inputs)[1],
                self.train_targets,
                self.noise(),
            )
        strategy = self.prediction_strategy
        test_train_covar = full_covar[num_train:, :num_train]
        mean = (
            test_train_covar.matmul(strategy.mean_cache)
            + full_mean[num_train:]
        )
        rhs = torch.linalg.solve(
            strategy.lik_train_train_covar, test_train_covar.T
        )
        covar = full_covar[num_train:, num_train:] - (
            test_train_covar.matmul(rhs)
        )
        if observation_noise:
            covar = covar + self.noise() * torch.eye(covar.size(-1))
        return mean, covar

    def fantasize(self, X, base_samples):
        mean, covar = self.posterior(X, observation_noise=True)
        chol = torch.linalg.cholesky(covar + 1e-6 * torch.eye(len(X)))
        Y_fantasized = mean + base_samples.matmul(chol.T)
        return FantasyGP(self, X, Y_fantasized)


class FantasyGP:
    # ExactGP.get_fantasy_model: the strategy's new mean cache
    def __init__(self, model, X, targets):
        self.model = model
        self.full_inputs = torch.cat([model.train_inputs, X])
        full_mean, full_covar = model.forward(self.full_inputs)
        num_train = model.train_targets.size(-1)
        self.mean_cache = (
            model.prediction_strategy.get_fantasy_mean_cache(
                targets,
                full_mean[num_train:],
                full_covar,
                model.noise(),
            )
        )

    def posterior_mean(self, X):
        full_mean, full_covar = self.model.forward(
            torch.cat([self.full_inputs, X])
        )
        n = self.full_inputs.size(0)
        test_train_covar = full_covar[n:, :n]
        return (
            self.mean_cache.matmul(test_train_covar.T) + full_mean[n:]
        )


class qKnowledgeGradient:
    def __init__(self, model, num_fantasies, base_samples):
        self.model = model
        self.num_fantasies = num_fantasies
        self.base_samples = base_samples

    def __call__(self, X):
        X_actual = X[: -self.num_fantasies]
        X_fantasies = X[-self.num_fantasies :]
        fantasy_model = self.model.fantasize(
            X_actual, self.base_samples
        )
        values = fantasy_model.posterior_mean(X_fantasies)
        # PosteriorMean of fantasy i at its own fantasy point
        return values.diagonal().mean()


train_X = torch.rand(8, 1)
train_Y = torch.sin(2 * math.pi * train_X).squeeze(-1)
model = SingleTaskGP(train_X, train_Y)
num_fantasies = 4
acqf = qKnowledgeGradient(
    model, num_fantasies, torch.randn(num_fantasies, 1)
)

# gen_candidates_torch
initial_conditions = torch.rand(1 + num_fantasies, 1)
candidates = initial_conditions.clone().requires_grad_(True)
bayes_optimizer = torch.optim.Adam([candidates], lr=0.025)
for i in range(3):
    loss = -acqf(candidates).sum()
    print(f"Iter: {i} - Value: {-loss.item():.3f}")

    def closure(loss=loss):
        bayes_optimizer.zero_grad()
        loss.backward()
        return loss

    bayes_optimizer.step(closure)
