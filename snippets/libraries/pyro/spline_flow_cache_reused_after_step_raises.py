"""Source: https://github.com/pyro-ppl/pyro/pull/2542

Library: pyro-ppl 1.9.2, run unmodified. The loop of Pyro's first
normalizing-flows tutorial, as its pull request first had it: a
Spline flow learns the density of a 2-d data set by maximum
likelihood, with a PyTorch optimizer on the transform's parameters.
What the author wanted: fit the flow to the data, one Adam step per
pass over the whole data set.
"""

import pyro.distributions as dist
import pyro.distributions.transforms as T
import torch
from sklearn import datasets
from sklearn.preprocessing import StandardScaler

torch.manual_seed(0)

X, y = datasets.make_circles(
    n_samples=200, factor=0.5, noise=0.05, random_state=0
)
X = StandardScaler().fit_transform(X)

base_dist = dist.Normal(torch.zeros(2), torch.ones(2))
spline_transform = T.spline(2)
flow_dist = dist.TransformedDistribution(base_dist, [spline_transform])

dataset = torch.tensor(X, dtype=torch.float)
optimizer = torch.optim.Adam(spline_transform.parameters(), lr=1e-2)
for step in range(3):
    optimizer.zero_grad()
    loss = -flow_dist.log_prob(dataset).mean()
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.3f}")
