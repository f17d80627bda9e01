import torch
from torch import nn
from torch.distributions import Categorical

torch.manual_seed(0)
policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
opt = torch.optim.Adam(policy.parameters(), lr=1e-2)

# A stand-in environment: random states; action 1 pays off when
# the first feature is positive, action 0 otherwise.
log_probs, rewards = [], []
for t in range(8):
    state = torch.randn(4)
    dist = Categorical(logits=policy(state))
    action = dist.sample()
    log_probs.append(dist.log_prob(action))  # carries its graph
    rewards.append(float(action == (state[0] > 0)))

returns = torch.tensor(rewards)
advantages = returns - returns.mean()

# Several update epochs over the one batch, as PPO does.
for epoch in range(3):
    opt.zero_grad()
    loss = -(torch.stack(log_probs) * advantages).mean()
    loss.backward()  # epoch 1: the rollout's graph is already freed
    opt.step()
    print(f"epoch {epoch}: loss = {loss.item():.4f}")
