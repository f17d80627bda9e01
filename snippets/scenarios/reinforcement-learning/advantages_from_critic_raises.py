import torch
from torch import nn
from torch.distributions import Categorical

torch.manual_seed(0)
actor = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
critic = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
params = list(actor.parameters()) + list(critic.parameters())
opt = torch.optim.Adam(params, lr=1e-2)

states, actions, old_log_probs, rewards = [], [], [], []
with torch.no_grad():
    for t in range(8):
        state = torch.randn(4)
        dist = Categorical(logits=actor(state))
        action = dist.sample()
        states.append(state)
        actions.append(action)
        old_log_probs.append(dist.log_prob(action))
        rewards.append(float(action == (state[0] > 0)))

states, actions = torch.stack(states), torch.stack(actions)
old_log_probs = torch.stack(old_log_probs)
returns = torch.tensor(rewards)
# Computed once, before the epochs, from the critic, with a graph.
advantages = returns - critic(states).squeeze(1)
print(f"advantages carry a graph: {advantages.requires_grad}")

for epoch in range(3):
    opt.zero_grad()
    log_probs = Categorical(logits=actor(states)).log_prob(actions)
    ratio = (log_probs - old_log_probs).exp()
    clipped = ratio.clamp(0.8, 1.2)
    actor_loss = -torch.min(
        ratio * advantages, clipped * advantages
    ).mean()
    values = critic(states).squeeze(1)
    critic_loss = (returns - values).pow(2).mean()
    (actor_loss + critic_loss).backward()  # epoch 1 raises
    opt.step()
    print(f"epoch {epoch}: critic loss = {critic_loss.item():.4f}")
