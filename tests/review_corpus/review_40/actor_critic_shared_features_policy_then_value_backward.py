# Source: https://github.com/cpnota/autonomous-learning-library/issues/61
# A2C-style actor-critic with a shared feature network: the policy head's loss
# and the value head's loss are backwarded separately through the same shared
# features, then a single optimizer step updates features + both heads.
import torch
from torch import nn
from torch.distributions import Categorical

torch.manual_seed(0)
features = nn.Sequential(nn.Linear(4, 32), nn.ReLU())
policy_head, value_head = nn.Linear(32, 2), nn.Linear(32, 1)
params = (
    list(features.parameters()) + list(policy_head.parameters()) + list(value_head.parameters())
)
optimizer = torch.optim.Adam(params, lr=1e-2)

for update in range(3):
    states = torch.randn(16, 4)  # a batch of rollout states
    returns = states[:, :1] * 0.5 + 1.0  # stand-in n-step returns
    f = features(states)
    dist = Categorical(logits=policy_head(f))
    actions = dist.sample()
    values = value_head(f)
    advantages = (returns - values).detach().squeeze(1)
    policy_loss = -(dist.log_prob(actions) * advantages).mean() - 0.01 * dist.entropy().mean()
    value_loss = 0.5 * (returns - values).pow(2).mean()

    optimizer.zero_grad()
    policy_loss.backward()
    value_loss.backward()  # RuntimeError: shared feature graph already freed
    optimizer.step()
    print(update, policy_loss.item(), value_loss.item())
