import torch
from torch import nn
from torch.distributions import Categorical

torch.manual_seed(0)
policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
opt = torch.optim.Adam(policy.parameters(), lr=1e-2)

# Acting needs no graph: store what it takes to rebuild one later.
states, actions, old_log_probs, rewards = [], [], [], []
with torch.no_grad():
    for t in range(8):
        state = torch.randn(4)
        dist = Categorical(logits=policy(state))
        action = dist.sample()
        states.append(state)
        actions.append(action)
        old_log_probs.append(dist.log_prob(action))  # a plain number
        rewards.append(float(action == (state[0] > 0)))

states, actions = torch.stack(states), torch.stack(actions)
old_log_probs = torch.stack(old_log_probs)
returns = torch.tensor(rewards)
advantages = returns - returns.mean()

# --8<-- [start:fix]
for epoch in range(3):
    opt.zero_grad()
    # One forward per epoch: a fresh graph from the current policy.
    log_probs = Categorical(logits=policy(states)).log_prob(actions)
    ratio = (log_probs - old_log_probs).exp()  # PPO's new/old ratio
    clipped = ratio.clamp(0.8, 1.2)
    loss = -torch.min(ratio * advantages, clipped * advantages).mean()
    loss.backward()
    # --8<-- [end:fix]
    opt.step()
    print(
        f"epoch {epoch}: ratio new/old in "
        f"[{ratio.min():.4f}, {ratio.max():.4f}]"
    )
