# PPO with a Gaussian policy whose std is exp(log_std), a learned
# parameter. The std was computed once in __init__; the 2nd update
# raised the backward-twice error, and .detach() made it run.
import torch
from torch import nn
from torch.distributions import Normal

torch.manual_seed(0)


class GaussianPolicy(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.mu = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(),
                                nn.Linear(32, act_dim))
        self.log_std = nn.Parameter(torch.zeros(act_dim))
        self.std = self.log_std.exp().detach()

    def forward(self, obs):
        return Normal(self.mu(obs), self.std)


def reward(obs, act):  # a one-step task: act = the first two features
    return -((act - obs[:, :2]) ** 2).sum(1)


policy = GaussianPolicy(obs_dim=4, act_dim=2)
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
for it in range(4):
    obs = torch.randn(64, 4)
    with torch.no_grad():  # the rollout: old log-probs, kept fixed
        dist = policy(obs)
        act = dist.sample()
        old_logp = dist.log_prob(act).sum(1)
        ret = reward(obs, act)
        adv = (ret - ret.mean()) / (ret.std() + 1e-8)
    none = 0
    for epoch in range(4):  # PPO reuses the rollout for 4 epochs
        logp = policy(obs).log_prob(act).sum(1)
        ratio = (logp - old_logp).exp()
        clipped = ratio.clamp(0.8, 1.2)
        loss = -torch.min(ratio * adv, clipped * adv).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        none += policy.log_std.grad is None
    std = policy.log_std.exp().tolist()
    print(f"iteration {it}: mean return {ret.mean().item():.3f}, "
          f"log_std grad None at {none} of 4 updates, std "
          f"[{std[0]:.3f}, {std[1]:.3f}]")
