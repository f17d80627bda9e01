import torch
import torch.nn as nn
from torch.distributions import Normal

torch.manual_seed(0)

OBS, PRIV, ACT = 12, 4, 3


def mlp(i, o, h=64):
    return nn.Sequential(nn.Linear(i, h), nn.ELU(), nn.Linear(h, h), nn.ELU(), nn.Linear(h, o))


class ActorCriticEstimator(nn.Module):
    """Concurrent policy + state estimator: the actor sees [obs, estimator(obs)]."""

    def __init__(self):
        super().__init__()
        self.estimator = mlp(OBS, PRIV)
        self.actor = mlp(OBS + PRIV, ACT)
        self.critic = mlp(OBS + PRIV, 1)
        self.log_std = nn.Parameter(torch.zeros(ACT))
        self.last_estimate = None

    def actor_input(self, obs):
        est = self.estimator(obs)
        self.last_estimate = est
        return torch.cat([obs, est], dim=-1)

    def evaluate(self, obs, actions, privileged):
        dist = Normal(self.actor(self.actor_input(obs)), self.log_std.exp())
        value = self.critic(torch.cat([obs, privileged], dim=-1)).squeeze(-1)
        return dist.log_prob(actions).sum(-1), dist.entropy().sum(-1), value


policy = ActorCriticEstimator()
est_params = set(policy.estimator.parameters())
optimizer = torch.optim.Adam([p for p in policy.parameters() if p not in est_params], lr=3e-4)
estimator_optimizer = torch.optim.Adam(policy.estimator.parameters(), lr=1e-3)

# one rollout buffer (normally filled by the simulator)
N = 256
obs = torch.randn(N, OBS)
privileged = torch.tanh(obs[:, :PRIV] * 2.0)
with torch.no_grad():
    logp_old, _, values = policy.evaluate(obs, torch.randn(N, ACT), privileged)
actions = torch.randn(N, ACT)
returns = torch.randn(N)
advantages = (returns - values)
advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)

clip, vf_coef, ent_coef = 0.2, 0.5, 0.01
for epoch in range(2):
    for idx in torch.randperm(N).split(64):
        optimizer.zero_grad()
        estimator_optimizer.zero_grad()
        logp, entropy, value = policy.evaluate(obs[idx], actions[idx], privileged[idx])
        ratio = torch.exp(logp - logp_old[idx])
        surr = torch.max(-advantages[idx] * ratio, -advantages[idx] * ratio.clamp(1 - clip, 1 + clip)).mean()
        value_loss = (returns[idx] - value).pow(2).mean()
        loss = surr + vf_coef * value_loss - ent_coef * entropy.mean()
        loss.backward(retain_graph=True)
        nn.utils.clip_grad_norm_(optimizer.param_groups[0]["params"], 1.0)
        optimizer.step()

        estimator_loss = (policy.last_estimate - privileged[idx]).pow(2).mean()
        estimator_loss.backward()
        estimator_optimizer.step()
        print(f"epoch {epoch} ppo {loss.item():.4f} estimator {estimator_loss.item():.4f}")
