# source: https://github.com/vwxyzjn/cleanrl/commit/5a3a092564a9fcf2cb748ca2ad23007989567f2e
# (reduced from cleanrl/ppo_continuous_action.py as it was before that commit)
#
# What it does: a small PPO agent (separate policy and value networks, one Adam over
# both) collects one episode per iteration from a toy 1-D "reach the origin" task and
# then runs several update epochs over that episode.
# What the author intended: the value network is regressed to the discounted returns in
# every update epoch, so each epoch's value loss should use the value network as it is
# *in that epoch*. Instead the value predictions made during the rollout (values[step] =
# vf(obs)), which still carry the rollout graph, are reused in vf_loss in every epoch.
# The first epoch's backward frees that graph; the second epoch raises.
import torch
import torch.nn as nn
import torch.optim as optim
from torch.distributions.normal import Normal

torch.manual_seed(1)


class PointEnv:
    """A 1-D point that must be pushed to the origin. obs = (x, v)."""

    def __init__(self, episode_length=32):
        self.episode_length = episode_length

    def reset(self):
        self.t = 0
        self.x = torch.rand(1).item() * 2 - 1
        self.v = 0.0
        return torch.tensor([self.x, self.v])

    def step(self, action):
        a = max(-1.0, min(1.0, float(action)))
        self.v = 0.9 * self.v + 0.1 * a
        self.x = max(-3.0, min(3.0, self.x + self.v))
        self.t += 1
        reward = -abs(self.x)
        done = self.t >= self.episode_length
        return torch.tensor([self.x, self.v]), reward, done


class Args:
    learning_rate = 3e-4
    gamma = 0.99
    clip_coef = 0.2
    vf_coef = 0.5
    ent_coef = 0.01
    max_grad_norm = 0.5
    update_epochs = 4
    episode_length = 32
    total_timesteps = 96


args = Args()
env = PointEnv(args.episode_length)
input_shape, output_shape = 2, 1


def preprocess_obs_fn(x):
    # the original converted a numpy observation buffer into a fresh tensor
    return torch.tensor(x.tolist(), dtype=torch.float32)


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(input_shape, 120)
        self.fc2 = nn.Linear(120, 84)
        self.mean = nn.Linear(84, output_shape)
        self.logstd = nn.Parameter(torch.zeros(1, output_shape))

    def forward(self, x):
        x = preprocess_obs_fn(x)
        x = torch.tanh(self.fc1(x))
        x = torch.tanh(self.fc2(x))
        action_mean = self.mean(x)
        action_logstd = self.logstd.expand_as(action_mean)
        return action_mean, action_logstd

    def get_action(self, x):
        mean, logstd = self.forward(x)
        probs = Normal(mean, torch.exp(logstd))
        action = probs.sample()
        return action, probs.log_prob(action).sum(1)

    def get_logproba(self, x, actions):
        action_mean, action_logstd = self.forward(x)
        dist = Normal(action_mean, torch.exp(action_logstd))
        return dist.log_prob(actions).sum(1)


class Value(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(input_shape, 64)
        self.fc2 = nn.Linear(64, 1)

    def forward(self, x):
        x = preprocess_obs_fn(x)
        x = torch.tanh(self.fc1(x))
        return self.fc2(x)


pg = Policy()
vf = Value()
optimizer = optim.Adam(list(pg.parameters()) + list(vf.parameters()), lr=args.learning_rate)

global_step = 0
while global_step < args.total_timesteps:
    next_obs = env.reset()
    obs = torch.zeros(args.episode_length, input_shape)
    actions = torch.zeros(args.episode_length, output_shape)
    rewards = torch.zeros(args.episode_length)
    dones = torch.zeros(args.episode_length)
    values = torch.zeros(args.episode_length)
    logprobs = torch.zeros(args.episode_length)

    for step in range(args.episode_length):
        global_step += 1
        obs[step] = next_obs
        # ALGO LOGIC: put action logic here
        values[step] = vf.forward(obs[step : step + 1])
        action, logproba = pg.get_action(obs[step : step + 1])
        actions[step] = action.data[0]
        logprobs[step] = logproba.data[0]
        next_obs, rewards[step], done = env.step(action[0, 0])
        dones[step] = float(done)
        if done:
            break

    returns = torch.zeros_like(rewards)
    returns[step] = rewards[step]
    for t in reversed(range(rewards.shape[0] - 1)):
        returns[t] = rewards[t] + args.gamma * returns[t + 1] * (1 - dones[t])
    advantages = returns - values.detach()

    for _ in range(args.update_epochs):
        newlogproba = pg.get_logproba(obs[: step + 1], actions[: step + 1])
        ratio = torch.exp(newlogproba - logprobs[: step + 1])
        surrogate1 = ratio * advantages[: step + 1]
        surrogate2 = ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef) * advantages[: step + 1]
        policy_loss = -torch.mean(torch.min(surrogate1, surrogate2))
        vf_loss = torch.mean((values[: step + 1] - returns[: step + 1]).pow(2))
        entropy_loss = torch.mean(torch.exp(newlogproba) * newlogproba)
        total_loss = policy_loss + args.vf_coef * vf_loss + args.ent_coef * entropy_loss
        optimizer.zero_grad()
        total_loss.backward()
        nn.utils.clip_grad_norm_(list(pg.parameters()) + list(vf.parameters()), args.max_grad_norm)
        optimizer.step()

    print(
        f"global_step={global_step}, episode_reward={rewards.sum().item():.3f}, "
        f"value_loss={vf_loss.item():.4f}"
    )
