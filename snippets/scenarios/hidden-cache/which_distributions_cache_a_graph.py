import torch
from torch import nn
from torch.distributions import (
    Bernoulli,
    Categorical,
    MultivariateNormal,
    Normal,
)

w = nn.Parameter(torch.zeros(3))
s = nn.Parameter(torch.ones(3))
cov = nn.Parameter(torch.eye(3))
makers = {
    "Bernoulli(logits=w)": lambda: Bernoulli(logits=w),
    "Categorical(logits=w)": lambda: Categorical(logits=w),
    "Normal(w, s)": lambda: Normal(w, s),
    "MultivariateNormal(w, cov)": lambda: MultivariateNormal(w, cov),
}
for name, make in makers.items():
    dist = make()  # built once, used for two backward calls
    try:
        for _ in range(2):
            value = dist.sample()
            loss = -dist.log_prob(value).sum() - dist.entropy().sum()
            loss.backward()
        outcome = "second backward works"
    except RuntimeError:
        outcome = "second backward raises"
    held = [
        f"{key} ({t.grad_fn.name()})"
        for key, t in vars(dist).items()
        if isinstance(t, torch.Tensor) and t.grad_fn is not None
    ]
    print(f"{name}: {outcome}")
    print(f"    holds a graph: {', '.join(held) or 'nothing'}")
