"""https://github.com/cornellius-gp/gpytorch/issues/1754

gpytorch 1.15.2. The user wanted to train a sparse GP's variational
parameters on a loss of samples from its variational distribution.
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
for i in range(2):
    opt.zero_grad()
    q_u = model.variational_strategy.variational_distribution
    loss = -q_u.rsample(torch.Size([10])).sum()
    loss.backward()
    opt.step()
    print(f"iteration {i}: loss {loss.item():.2f}")
