"""https://github.com/cornellius-gp/gpytorch/issues/1145

gpytorch 1.15.2. The user wanted to train an exact GP whose eval-mode
predictions feed another model (a "flipped" deep kernel), the GP's
hyperparameters included, as the maintainer advised: in a
detach_test_caches(False) context.
Wrong fix: leave detach_test_caches on (the default): no error, and
the hyperparameters lose the gradient through the caches.
"""

import gpytorch
import torch


class ExactGPModel(gpytorch.models.ExactGP):
    def __init__(self, train_x, train_y, likelihood):
        super().__init__(train_x, train_y, likelihood)
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
train_x = torch.linspace(0, 1, 20)
train_y = torch.sin(6 * train_x) + 0.1 * torch.randn(20)
likelihood = gpytorch.likelihoods.GaussianLikelihood()
model = ExactGPModel(train_x, train_y, likelihood)
head = torch.nn.Linear(1, 1)  # the model the GP's output feeds
query_x = torch.rand(8)
target = torch.cos(6 * query_x)


def full_grad():
    """The lengthscale's gradient from a copy with no caches yet."""
    copy = ExactGPModel(train_x, train_y, likelihood)
    copy.load_state_dict(model.state_dict())
    copy.eval()
    with gpytorch.settings.detach_test_caches(False):
        f = copy(query_x).mean
        out = head(f.unsqueeze(-1)).squeeze(-1)
        loss = torch.mean((out - target) ** 2)
        lengthscale = copy.covar_module.base_kernel.raw_lengthscale
        return torch.autograd.grad(loss, lengthscale)[0]


model.eval()
likelihood.eval()
params = list(model.parameters()) + list(head.parameters())
optimizer = torch.optim.Adam(params, lr=0.05)
lengthscale = model.covar_module.base_kernel.raw_lengthscale
for i in range(3):
    optimizer.zero_grad()
    f = model(query_x).mean
    loss = torch.mean((head(f.unsqueeze(-1)).squeeze(-1) - target) ** 2)
    loss.backward()
    full = torch.allclose(lengthscale.grad, full_grad(), atol=1e-6)
    optimizer.step()
    print(
        f"step {i}: loss {loss.item():.4f}, "
        f"lengthscale grad is the full gradient: {full}"
    )
