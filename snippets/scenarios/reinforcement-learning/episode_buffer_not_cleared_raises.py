import torch
from torch import nn
from torch.distributions import Categorical

torch.manual_seed(0)
policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
log_probs, rewards = [], []  # the episode buffer

for episode in range(2):
    for t in range(4):
        state = torch.randn(4)
        dist = Categorical(logits=policy(state))
        action = dist.sample()
        log_probs.append(dist.log_prob(action))
        rewards.append(float(action == (state[0] > 0)))

    # REINFORCE update at the end of each episode
    returns = torch.tensor(rewards)
    opt.zero_grad()
    loss = -(torch.stack(log_probs) * (returns - 0.5)).sum()
    loss.backward()  # episode 1: still holds episode 0's log-probs
    opt.step()
    print(f"episode {episode}: updated on {len(log_probs)} steps")
