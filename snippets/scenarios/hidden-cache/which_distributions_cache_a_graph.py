import torch
from torch import nn
from torch.distributions import (
    Bernoulli,
    Categorical,
    MultivariateNormal,
    Normal,
)

w = nn.Parameter(torch.zeros(3))
p = nn.Parameter(torch.full((3,), 0.5))
s = nn.Parameter(torch.ones(3))
log_s = nn.Parameter(torch.zeros(3))
cov = nn.Parameter(torch.eye(3))
makers = {
    "Bernoulli(logits=w)": lambda: Bernoulli(logits=w),
    "Bernoulli(probs=p)": lambda: Bernoulli(probs=p),
    "Categorical(logits=w)": lambda: Categorical(logits=w),
    "Normal(w, s)": lambda: Normal(w, s),
    "Normal(w, log_s.exp())": lambda: Normal(w, log_s.exp()),
    "MultivariateNormal(w, cov)": lambda: MultivariateNormal(w, cov),
}
losses = {
    "log_prob + entropy": lambda d, v: (
        -d.log_prob(v).sum() - d.entropy().sum()
    ),
    "log_prob alone": lambda d, v: -d.log_prob(v).sum(),
}


def second_backward(make, loss_of):
    dist = make()  # built once, used for two backward calls
    try:
        for _ in range(2):
            loss_of(dist, dist.sample()).backward()
    except RuntimeError as err:
        if "second time" not in str(err):
            raise
        return dist, "raises"
    return dist, "works"


for name, make in makers.items():
    outcomes = []
    for loss_name, loss_of in losses.items():
        dist, outcome = second_backward(make, loss_of)
        outcomes.append(f"{outcome} ({loss_name})")
    held = [
        f"{key} ({t.grad_fn.name()})"
        for key, t in vars(dist).items()
        if isinstance(t, torch.Tensor) and t.grad_fn is not None
    ]
    print(name)
    print(f"    second backward: {', '.join(outcomes)}")
    print(f"    holds a graph: {', '.join(held) or 'nothing'}")
