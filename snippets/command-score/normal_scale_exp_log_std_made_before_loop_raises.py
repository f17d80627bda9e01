"""A Normal distribution whose scale is exp(log_std), built once before
the training loop, fitted by SGD on the log of its scale.

Source: https://discuss.pytorch.org/t/defining-parameters-by-some-transformation-or-retaining-sub-graphs-but-not-the-whole-graph/50139
The user, in Bayesian machine learning, wanted to optimize the log of
a distribution's standard deviation (so that it cannot go negative)
while referring only to the distribution in the loop, without
recomputing the transformation there, and asked whether a sub-graph
(exp of the parameter) can be kept while the rest is freed. Their
second version, which runs, makes std = exp(log_std) and the
distribution again in every iteration.
Kept: the first version as posted (log_std and mean as
nn.Parameter, std = torch.exp(log_std) and dd.Normal(mean, std)
before the loop, SGD on [log_std, mean] with lr 0.01, target
Normal(5, 5), rsample of 1000 samples, the KL-like cost, backward,
step, the prints); changed: 3 iterations instead of 50, seeded, the
prints on one line.
"""

import torch
import torch.distributions as dd
import torch.nn as nn

torch.manual_seed(0)

log_std = nn.Parameter(torch.Tensor([1]))
std = torch.exp(log_std)
mean = nn.Parameter(torch.Tensor([1]))
dist = dd.Normal(loc=mean, scale=std)

optim = torch.optim.SGD([log_std, mean], lr=0.01)
target = dd.Normal(5, 5)

for i in range(3):
    samples = dist.rsample((1000,))
    cost = -(target.log_prob(samples) - dist.log_prob(samples)).sum()
    cost.backward()
    optim.step()
    # Four decimals: the last digits differ between CPU kernels.
    print(
        f"{i} {log_std.item():.4f} {mean.item():.4f} {cost.item():.2f}"
    )
