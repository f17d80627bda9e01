import torch
import torch.nn as nn

torch.manual_seed(0)


class Corridor:
    def __init__(self, length=10, max_steps=40):
        self.length = length
        self.max_steps = max_steps

    def reset(self):
        self.pos = self.length // 2
        self.t = 0
        return self._obs()

    def _obs(self):
        one_hot = torch.zeros(self.length + 1)
        one_hot[self.pos] = 1.0
        return one_hot

    def step(self, action):
        self.pos = max(0, min(self.length, self.pos + (1 if action == 1 else -1)))
        self.t += 1
        done = self.pos == self.length or self.t >= self.max_steps
        reward = 1.0 if self.pos == self.length else -0.01
        return self._obs(), reward, done


env = Corridor()
obs_dim = env.length + 1
actor = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, 2))
critic = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, 1))
actor_opt = torch.optim.Adam(actor.parameters(), lr=3e-3)
critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-2)
gamma = 0.97

for episode in range(300):
    obs = env.reset()
    log_probs, values, rewards = [], [], []
    done = False
    while not done:
        dist = torch.distributions.Categorical(logits=actor(obs))
        action = dist.sample()
        log_probs.append(dist.log_prob(action))
        values.append(critic(obs).squeeze(-1))
        obs, reward, done = env.step(action.item())
        rewards.append(reward)

    returns, g = [], 0.0
    for r in reversed(rewards):
        g = r + gamma * g
        returns.insert(0, g)
    returns = torch.tensor(returns)
    values = torch.stack(values)
    log_probs = torch.stack(log_probs)

    advantage = returns - values
    critic_loss = advantage.pow(2).mean()
    critic_opt.zero_grad()
    critic_loss.backward()
    critic_opt.step()

    actor_loss = -(log_probs * advantage).mean()
    actor_opt.zero_grad()
    actor_loss.backward()
    actor_opt.step()

    if episode % 50 == 0:
        print(episode, len(rewards), sum(rewards))
