import torch
from torch import nn
from torch.distributions import Bernoulli, Categorical

torch.manual_seed(0)
# What __init__ computes, no_grad() strips of its graph for good:
w = nn.Parameter(torch.zeros(3))
with torch.no_grad():
    categorical = Categorical(logits=w)
log_p = categorical.log_prob(torch.tensor(1))
print(f"Categorical: log_prob requires_grad {log_p.requires_grad}")

# What is cached lazily is computed later, with grad switched on:
logits = nn.Parameter(torch.zeros(4))
opt = torch.optim.SGD([logits], lr=0.5)
wanted = torch.tensor([1.0, 0.0, 1.0, 1.0])
with torch.no_grad():  # meant to keep graphs out of the object
    policy = Bernoulli(logits=logits)

for step in range(2):
    action = policy.sample()  # first access to probs
    reward = (action == wanted).float()
    loss = -(policy.log_prob(action) * reward).sum()
    loss = loss - 0.01 * policy.entropy().sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    cached = vars(policy)["probs"]
    print(
        f"Bernoulli step {step}: loss = {loss.item():.4f}, "
        f"cached probs: {cached.grad_fn.name()}"
    )
