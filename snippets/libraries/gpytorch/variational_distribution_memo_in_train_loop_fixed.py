"""https://github.com/cornellius-gp/gpytorch/issues/1754

gpytorch 1.15.2. The user wanted to train a sparse GP's variational
parameters on a loss of samples from its variational distribution.
Fix: model.train() in every iteration empties the memo of q(u).
"""

import gpytorch
import torch


class ApproximateGPModel(gpytorch.models.ApproximateGP):
    def __init__(self, inducing_points):
        variational_distribution = (
            gpytorch.variational.CholeskyVariationalDistribution(
                inducing_points.size(-1)
            )
        )
        variational_strategy = gpytorch.variational.VariationalStrategy(
            self,
            inducing_points,
            variational_distribution,
            learn_inducing_locations=True,
        )
        super().__init__(variational_strategy)
        self.mean_module = gpytorch.means.ConstantMean()
        self.covar_module = gpytorch.kernels.ScaleKernel(
            gpytorch.kernels.RBFKernel()
        )

    def forward(self, x):
        mean_x = self.mean_module(x)
        covar_x = self.covar_module(x)
        return gpytorch.distributions.MultivariateNormal(
            mean_x, covar_x
        )


torch.manual_seed(0)
model = ApproximateGPModel(torch.randn(20))
model.train()

opt = torch.optim.Adam(model.parameters())
vd = model.variational_strategy._variational_distribution
for i in range(3):
    opt.zero_grad()
    # --8<-- [start:fix]
    model.train()  # clears the q(u) memoised in the last iteration
    q_u = model.variational_strategy.variational_distribution
    # --8<-- [end:fix]
    fresh = torch.equal(
        q_u.lazy_covariance_matrix.to_dense(),
        vd().lazy_covariance_matrix.to_dense(),
    )
    loss = -q_u.rsample(torch.Size([10])).sum()
    loss.backward()
    grad = vd.chol_variational_covar.grad.abs().sum().item() > 0
    opt.step()
    print(
        f"iteration {i}: loss {loss.item():.2f}, q(u) fresh: {fresh}"
        f", covariance factor has grad: {grad}"
    )
