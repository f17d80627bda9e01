# source: written blind
#
# What it does: synchronous advantage actor-critic (A2C) on a batch of toy "corridor"
# environments. One network: a shared MLP encoder feeding a policy head (action logits)
# and a value head. Every update collects an n-step rollout from all environments,
# computes bootstrapped n-step returns, and takes one RMSprop step on all parameters.
# What the author intended: one gradient step per rollout on
#   policy_loss + value_coef * value_loss - entropy_coef * entropy,
# i.e. the encoder gets the gradients of all three terms and each head the gradients of
# its own terms. The author back-propagates the policy loss and the value loss in two
# separate calls before stepping; the first call frees the shared encoder's graph (and
# the rollout's graph), so the second call raises.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical

torch.manual_seed(0)

N_ENVS, N_STEPS, N_UPDATES = 8, 5, 4
OBS_DIM, N_ACTIONS = 6, 2
GAMMA, VALUE_COEF, ENTROPY_COEF, MAX_GRAD_NORM = 0.99, 0.5, 0.01, 0.5


class CorridorEnvs:
    """N independent corridors of length 6; reward 1 for reaching the right end."""

    def __init__(self, n):
        self.n = n
        self.pos = torch.zeros(n, dtype=torch.long)

    def obs(self):
        return F.one_hot(self.pos, OBS_DIM).float()

    def reset(self):
        self.pos = torch.randint(0, OBS_DIM - 1, (self.n,))
        return self.obs()

    def step(self, actions):
        self.pos = (self.pos + (actions * 2 - 1)).clamp(0, OBS_DIM - 1)
        done = self.pos == OBS_DIM - 1
        reward = done.float()
        self.pos = torch.where(done, torch.zeros_like(self.pos), self.pos)
        return self.obs(), reward, done.float()


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Linear(OBS_DIM, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh()
        )
        self.policy_head = nn.Linear(64, N_ACTIONS)
        self.value_head = nn.Linear(64, 1)

    def forward(self, obs):
        h = self.encoder(obs)
        return self.policy_head(h), self.value_head(h).squeeze(-1)


def compute_returns(rewards, dones, last_value):
    returns, R = [], last_value
    for r, d in zip(reversed(rewards), reversed(dones)):
        R = r + GAMMA * R * (1 - d)
        returns.insert(0, R)
    return torch.stack(returns)


envs = CorridorEnvs(N_ENVS)
model = ActorCritic()
optimizer = torch.optim.RMSprop(model.parameters(), lr=7e-4, alpha=0.99, eps=1e-5)
obs = envs.reset()

for update in range(N_UPDATES):
    log_probs, values, entropies, rewards, dones = [], [], [], [], []
    for _ in range(N_STEPS):
        logits, value = model(obs)
        dist = Categorical(logits=logits)
        action = dist.sample()
        obs, reward, done = envs.step(action)
        log_probs.append(dist.log_prob(action))
        values.append(value)
        entropies.append(dist.entropy())
        rewards.append(reward)
        dones.append(done)

    with torch.no_grad():
        _, last_value = model(obs)
    returns = compute_returns(rewards, dones, last_value)
    values = torch.stack(values)
    advantages = (returns - values).detach()

    policy_loss = (
        -(torch.stack(log_probs) * advantages).mean() - ENTROPY_COEF * torch.stack(entropies).mean()
    )
    value_loss = F.mse_loss(values, returns)

    optimizer.zero_grad()
    policy_loss.backward()
    (VALUE_COEF * value_loss).backward()
    nn.utils.clip_grad_norm_(model.parameters(), MAX_GRAD_NORM)
    optimizer.step()
    print(
        f"update {update}: policy_loss={policy_loss.item():.4f} value_loss={value_loss.item():.4f}"
    )
