"""https://github.com/cornellius-gp/gpytorch/issues/961

pyro-ppl 1.9.2 with gpytorch 1.15.2. The user wanted to train
GPyTorch's PyroGP example with Pyro's SVI and Trace_ELBO.
"""

import gpytorch
import pyro
import torch

torch.manual_seed(0)
pyro.set_rng_seed(0)
# A fresh store: pyro.module() reuses any parameter already in it.
pyro.clear_param_store()
train_x = torch.linspace(0.0, 1.0, 21)
train_y = torch.pow(train_x, 2).mul_(3.7)
train_y = train_y.div_(train_y.max())
train_y += torch.randn_like(train_y).mul_(0.02)


class PVGPRegressionModel(gpytorch.models.PyroGP):
    def __init__(self, train_x, train_y, likelihood):
        # Define all the variational stuff
        variational_distribution = (
            gpytorch.variational.CholeskyVariationalDistribution(
                num_inducing_points=train_y.numel(),
            )
        )
        variational_strategy = gpytorch.variational.VariationalStrategy(
            self, train_x, variational_distribution
        )
        # Standard initialization
        super().__init__(
            variational_strategy,
            likelihood,
            num_data=train_y.numel(),
            name_prefix="simple_regression_model",
        )
        self.likelihood = likelihood
        # Mean, covar
        self.mean_module = gpytorch.means.ConstantMean()
        self.covar_module = gpytorch.kernels.ScaleKernel(
            gpytorch.kernels.MaternKernel(nu=1.5)
        )

    def forward(self, x):
        mean = self.mean_module(x)  # Returns an n_data vec
        covar = self.covar_module(x)
        return gpytorch.distributions.MultivariateNormal(mean, covar)


model = PVGPRegressionModel(
    train_x, train_y, gpytorch.likelihoods.GaussianLikelihood()
)


def train(num_iter=3):
    optimizer = pyro.optim.Adam({"lr": 0.1})
    elbo = pyro.infer.Trace_ELBO(
        num_particles=8, vectorize_particles=True
    )
    svi = pyro.infer.SVI(model.model, model.guide, optimizer, elbo)
    model.train()

    for i in range(num_iter):
        model.zero_grad()
        loss = svi.step(train_x, train_y)
        print(f"step {i}: loss {loss:.1f}")


train()
