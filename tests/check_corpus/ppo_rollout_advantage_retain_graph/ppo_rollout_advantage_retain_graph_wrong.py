# https://github.com/DarylRodrigo/rl_lib/pull/12
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.distributions import Categorical

torch.manual_seed(0)
np.random.seed(0)

OBS_DIM, N_ACTIONS, NUM_ENV, UPDATE_EVERY = 6, 3, 2, 16


class ActorCritic(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.network = nn.Sequential(nn.Linear(OBS_DIM, hidden), nn.ReLU(),
                                     nn.Linear(hidden, hidden), nn.ReLU())
        self.actor = nn.Linear(hidden, N_ACTIONS)
        self.critic = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.network(x)

    def act(self, x, action=None):
        values = self.critic(self.forward(x))
        logits = self.actor(self.forward(x))
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), values, probs.entropy()

    def get_values(self, x):
        return self.critic(self.forward(x))


class Memory:
    def __init__(self, size, num_envs, gamma=0.99):
        self.size, self.num_envs, self.gamma = size, num_envs, gamma
        self.states = torch.zeros((size, num_envs, OBS_DIM))
        self.actions = torch.zeros((size, num_envs))
        self.rewards = torch.zeros((size, num_envs))
        self.log_probs = torch.zeros((size, num_envs))
        self.values = torch.zeros((size, num_envs))
        self.dones = torch.zeros((size, num_envs))
        self.idx = 0
        self.discounted_returns = None

    def add(self, states, actions, rewards, log_probs, values, dones):
        self.states[self.idx] = states
        self.actions[self.idx] = actions
        self.rewards[self.idx] = rewards
        self.log_probs[self.idx] = log_probs.reshape(-1)
        self.values[self.idx] = values.reshape(-1)
        self.dones[self.idx] = dones
        self.idx += 1

    def calculate_discounted_returns(self, last_value, next_done):
        with torch.no_grad():
            self.discounted_returns = torch.zeros((self.size, self.num_envs))
            for t in reversed(range(self.size)):
                if t == self.size - 1:
                    next_non_terminal = 1.0 - next_done
                    next_return = last_value.reshape(-1)
                else:
                    next_non_terminal = 1.0 - self.dones[t + 1]
                    next_return = self.discounted_returns[t + 1]
                self.discounted_returns[t] = self.rewards[t] + self.gamma * next_non_terminal * next_return

    def calculate_advantage(self, last_value, next_done):
        self.calculate_discounted_returns(last_value, next_done)
        self.advantages = self.discounted_returns - self.values

    def sample(self, idx):
        return (self.states.reshape(-1, OBS_DIM)[idx], self.actions.reshape(-1)[idx],
                self.log_probs.reshape(-1)[idx], self.discounted_returns.reshape(-1)[idx],
                self.advantages.reshape(-1)[idx], self.values.reshape(-1)[idx])

    def get_mini_batch_idxs(self, mini_batch_size):
        idxs = np.arange(self.size * self.num_envs)
        np.random.shuffle(idxs)
        return [idxs[s:s + mini_batch_size] for s in range(0, self.size * self.num_envs, mini_batch_size)]

    def isFull(self):
        return self.idx == self.size

    def reset(self):
        self.idx = 0
        self.states = torch.zeros((self.size, self.num_envs, OBS_DIM))
        self.actions = torch.zeros((self.size, self.num_envs))
        self.rewards = torch.zeros((self.size, self.num_envs))
        self.log_probs = torch.zeros((self.size, self.num_envs))
        self.dones = torch.zeros((self.size, self.num_envs))


class PPOPixel:
    def __init__(self, lr=2.5e-4, epsilon=0.1, entropy_beta=0.01):
        self.mem = Memory(UPDATE_EVERY, NUM_ENV)
        self.epsilon, self.entropy_beta = epsilon, entropy_beta
        self.model = ActorCritic()
        self.model_old = ActorCritic()
        self.model_old.load_state_dict(self.model.state_dict())
        self.optimiser = optim.Adam(self.model.parameters(), lr=lr)

    def act(self, x):
        return self.model_old.act(x)

    def add_to_mem(self, *args):
        self.mem.add(*args)

    def learn(self, num_learn, last_value, next_done):
        self.mem.calculate_advantage(last_value, next_done)
        for i in range(num_learn):
            for mini_batch_idx in self.mem.get_mini_batch_idxs(mini_batch_size=8):
                prev_states, prev_actions, prev_log_probs, discounted_returns, advantage, prev_values = \
                    self.mem.sample(mini_batch_idx)

                _, log_probs, _, entropy = self.model.act(prev_states, prev_actions)
                ratio = torch.exp(log_probs - prev_log_probs.detach())
                values = self.model_old.get_values(prev_states).reshape(-1)

                surrogate_1 = advantage * ratio
                surrogate_2 = advantage * torch.clamp(ratio, 1 - self.epsilon, 1 + self.epsilon)

                new_values = self.model.get_values(prev_states).view(-1)
                value_loss_unclipped = (new_values - discounted_returns) ** 2
                values_clipped = values + torch.clamp(new_values - values, -self.epsilon, self.epsilon)
                value_loss_clipped = (values_clipped - discounted_returns) ** 2
                value_loss = 0.5 * torch.mean(torch.max(value_loss_clipped, value_loss_unclipped))

                pg_loss = -torch.min(surrogate_1, surrogate_2).mean()
                loss = pg_loss + value_loss - self.entropy_beta * entropy.mean()

                self.optimiser.zero_grad()
                loss.backward(retain_graph=True)
                nn.utils.clip_grad_norm_(self.model.parameters(), 0.5)
                self.optimiser.step()
        self.model_old.load_state_dict(self.model.state_dict())
        return pg_loss.item(), value_loss.item()


class FakeVecEnv:
    def reset(self):
        return torch.randn(NUM_ENV, OBS_DIM)

    def step(self, actions):
        rewards = (actions == 1).float() - 0.1 * torch.rand(NUM_ENV)
        dones = (torch.rand(NUM_ENV) < 0.05).float()
        return torch.randn(NUM_ENV, OBS_DIM), rewards, dones


envs = FakeVecEnv()
agent = PPOPixel()
for update in range(3):
    states = envs.reset()
    while not agent.mem.isFull():
        actions, log_probs, values, entrs = agent.act(states)
        next_states, rewards, dones = envs.step(actions)
        agent.add_to_mem(states, actions, rewards, log_probs, values, dones)
        states = next_states
    pg, vl = agent.learn(4, values, dones)
    agent.mem.reset()
    print("update", update, "pg_loss", round(pg, 4), "value_loss", round(vl, 4))
