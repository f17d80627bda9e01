# https://github.com/pytorch/examples/issues/151
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical

torch.manual_seed(0)
gamma, eps = 0.99, 1e-8


class Env:
    def reset(self):
        self.t, self.state = 0, torch.randn(4)
        return self.state

    def step(self, action):
        reward = 1.0 if (action == 1) == bool(self.state[0] > 0) else 0.0
        self.t, self.state = self.t + 1, torch.randn(4)
        return self.state, reward, self.t >= 10


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(4, 2)
        self.saved_log_probs, self.rewards, self.saved_states, self.saved_actions = [], [], [], []

    def forward(self, x):
        return F.softmax(self.affine1(x), dim=-1)


policy, env = Policy(), Env()
optimizer = optim.Adam(policy.parameters(), lr=3e-2)
memory = []


def select_action(state):
    m = Categorical(policy(state[None]))
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    policy.saved_states.append(state)
    policy.saved_actions.append(action)
    return action.item()


def finish_episode(batch):
    policy_loss = torch.cat([-log_prob * R for _, _, log_prob, R in batch]).sum()
    optimizer.zero_grad()
    policy_loss.backward(retain_graph=True)
    used = torch.cat([p.grad.flatten() for p in policy.parameters()])
    fresh_loss = torch.cat([-Categorical(policy(s[None])).log_prob(a) * R for s, a, _, R in batch]).sum()
    fresh = torch.cat([g.flatten() for g in torch.autograd.grad(fresh_loss, list(policy.parameters()))])
    optimizer.step()
    return ((used - fresh).norm() / fresh.norm()).item()


for i_episode in range(12):
    state = env.reset()
    for t in range(100):
        state, reward, done = env.step(select_action(state))
        policy.rewards.append(reward)
        if done:
            break
    R, returns = 0, []
    for r in policy.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    memory.extend(zip(policy.saved_states, policy.saved_actions, policy.saved_log_probs, returns))
    del policy.rewards[:], policy.saved_log_probs[:], policy.saved_states[:], policy.saved_actions[:]
    diffs = [finish_episode([memory[j] for j in torch.randint(len(memory), (16,))]) for _ in range(3)]
    print(f"episode {i_episode}: replay buffer {len(memory)}, rel diff |policy grad used - grad under current "
          f"policy| per update {', '.join(f'{d:.3f}' for d in diffs)}")
