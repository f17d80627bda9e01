"""https://github.com/meta-pytorch/botorch/issues/2253

botorch 0.18.1 (gpytorch 1.15.2). The user wanted to fit an objective
GP and a constraint GP whose training data came out of autograd.
"""

import torch
from botorch import fit_gpytorch_mll
from botorch.models import ModelListGP, SingleTaskGP
from gpytorch.mlls.sum_marginal_log_likelihood import (
    SumMarginalLogLikelihood,
)

torch.manual_seed(0)
train_x = torch.rand(30, 6, dtype=torch.double, requires_grad=True)

train_obj = (3 * train_x + train_x**2).sum(-1, keepdim=True)
train_con = (4 * train_x - train_x**3).sum(-1, keepdim=True)
print(f"train_obj.grad_fn: {type(train_obj.grad_fn).__name__}")

model_obj = SingleTaskGP(train_x, train_obj)
model_con = SingleTaskGP(train_x, train_con)

model = ModelListGP(model_obj, model_con)
mll = SumMarginalLogLikelihood(model.likelihood, model)

fit_gpytorch_mll(mll)
