"""https://github.com/meta-pytorch/botorch/issues/2253

botorch 0.18.1 (gpytorch 1.15.2). The user wanted to fit an objective
GP and a constraint GP whose training data came out of autograd.
Fix: fit on detached copies of the data; the GPs' own parameters train.
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

# --8<-- [start:fix]
X = train_x.detach()  # data for the GPs: constants, not a graph
model_obj = SingleTaskGP(X, train_obj.detach())
model_con = SingleTaskGP(X, train_con.detach())
# --8<-- [end:fix]

model = ModelListGP(model_obj, model_con)
mll = SumMarginalLogLikelihood(model.likelihood, model)


def neg_mll():
    model.train()
    out = model(*model.train_inputs)
    return -mll(out, model.train_targets).item()


before = neg_mll()
start = [p.detach().clone() for p in model.parameters()]
fit_gpytorch_mll(mll)
after = neg_mll()
moved = sum(
    not torch.equal(a, p) for a, p in zip(start, model.parameters())
)
print(f"-mll lower after the fit: {after < before}")
print(f"{moved} of {len(start)} GP parameters moved by the fit")
