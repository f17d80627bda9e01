"""https://github.com/cornellius-gp/gpytorch/issues/2689

gpytorch 1.15.2. The user wanted the gradient of a variational GP's
prediction with respect to the test inputs, in eval mode, twice.
"""

import gpytorch
import torch
from gpytorch.models.approximate_gp import ApproximateGP
from gpytorch.variational import VariationalStrategy
from gpytorch.variational.cholesky_variational_distribution import (
    CholeskyVariationalDistribution,
)


class GPModel(ApproximateGP):
    def __init__(self, inducing_points):
        variational_distribution = CholeskyVariationalDistribution(
            inducing_points.size(0)
        )
        variational_strategy = VariationalStrategy(
            self,
            inducing_points,
            variational_distribution,
            learn_inducing_locations=False,
        )
        super().__init__(variational_strategy)
        self.mean_module = gpytorch.means.ConstantMean()
        self.covar_module = gpytorch.kernels.RBFKernel()

    def forward(self, x):
        mean_x = self.mean_module(x)
        covar_x = self.covar_module(x)
        return gpytorch.distributions.MultivariateNormal(
            mean_x, covar_x
        )


torch.manual_seed(0)
model = GPModel(inducing_points=torch.rand(5, 2))
model.eval()

for attempt in ("first", "second"):
    test_x = torch.rand(3, 2).requires_grad_(True)
    test_y = torch.rand(3)
    predictive_dist = model(test_x)
    loss = torch.mean(predictive_dist.mean - test_y)
    loss.backward()
    print(
        f"{attempt} backward: |grad of test_x| "
        f"{test_x.grad.norm().item():.4f}"
    )
