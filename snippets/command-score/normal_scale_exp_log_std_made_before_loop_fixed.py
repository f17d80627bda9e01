"""A Normal distribution whose scale is exp(log_std), made again in each
iteration of the SGD loop that fits the log of its scale.

Source: https://discuss.pytorch.org/t/defining-parameters-by-some-transformation-or-retaining-sub-graphs-but-not-the-whole-graph/50139
The user, in Bayesian machine learning, wanted to optimize the log of
a distribution's standard deviation (so that it cannot go negative)
while referring only to the distribution in the loop, and asked
whether a sub-graph (exp of the parameter) can be kept while the rest
is freed. Their second version, which runs, makes std = exp(log_std)
and the distribution again in every iteration.
Kept: the first version's parameters, optimizer, target, samples and
cost, std and the distribution now made at the top of each iteration
(the user's second version); changed: 3 iterations instead of 50,
seeded, the prints on one line, a check of the gradients against a
fresh computation from copies of the parameters on the same noise,
and SGD's lr 0.01 became 1e-4: on a cost summed over 1000 samples,
0.01 sends log_std to 8 at the first step and to -3.3e6 at the
second, and the third iteration's scale, exp of that, is 0, which
Normal refuses.
"""

import torch
import torch.distributions as dd
import torch.nn as nn

torch.manual_seed(0)

log_std = nn.Parameter(torch.Tensor([1]))
mean = nn.Parameter(torch.Tensor([1]))

optim = torch.optim.SGD([log_std, mean], lr=1e-4)
target = dd.Normal(5, 5)

for i in range(3):
    std = torch.exp(log_std)
    dist = dd.Normal(loc=mean, scale=std)
    rng = torch.get_rng_state()
    samples = dist.rsample((1000,))
    cost = -(target.log_prob(samples) - dist.log_prob(samples)).sum()
    cost.backward()
    # reference: the same cost from copies of the current parameters,
    # on the same noise
    torch.set_rng_state(rng)
    ls = log_std.detach().clone().requires_grad_()
    m = mean.detach().clone().requires_grad_()
    ref_dist = dd.Normal(m, torch.exp(ls))
    s = ref_dist.rsample((1000,))
    ref_cost = -(target.log_prob(s) - ref_dist.log_prob(s)).sum()
    ref = torch.autograd.grad(ref_cost, [ls, m])
    same = torch.allclose(log_std.grad, ref[0]) and torch.allclose(
        mean.grad, ref[1]
    )
    optim.step()
    optim.zero_grad()
    # Four decimals: the last digits differ between CPU kernels.
    print(
        f"{i} {log_std.item():.4f} {mean.item():.4f} {cost.item():.2f}",
        f"grads = a fresh computation's: {same}",
    )
