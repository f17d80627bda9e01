"""Source: https://github.com/pyro-ppl/pyro/pull/2542

Library: pyro-ppl 1.9.2, run unmodified. The fix the pull request
settled on: clear the flow's transform caches after each optimizer
step, so that the next log_prob computes the inverse afresh.
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


def fresh_loss():
    """The loss from the current parameters, by a flow with no cache."""
    ref = T.spline(2)
    ref.load_state_dict(spline_transform.state_dict())
    ref_dist = dist.TransformedDistribution(base_dist, [ref])
    with torch.no_grad():
        return -ref_dist.log_prob(dataset).mean()


for step in range(3):
    optimizer.zero_grad()
    loss = -flow_dist.log_prob(dataset).mean()
    fresh = fresh_loss()
    loss.backward()
    grad = spline_transform.unnormalized_widths.grad
    optimizer.step()
    flow_dist.clear_cache()  # the cache holds the last parameters
    print(f"step {step}: loss {loss.item():.3f}")
    print(
        f"  loss is from the current parameters: "
        f"{torch.allclose(loss, fresh)}"
    )
    print(f"  spline grad nonzero: {bool(grad.abs().sum() > 0)}")
