# Fitted value iteration on a small chain MDP: the value network is
# regressed onto the Bellman targets r + gamma * V(s').
import torch
from torch import nn

torch.manual_seed(0)
N, gamma = 10, 0.9
states = torch.eye(N)
next_states = torch.roll(states, -1, 0)
rewards = torch.zeros(N, 1)
rewards[-1] = 1.0

value = nn.Sequential(nn.Linear(N, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.Adam(value.parameters(), lr=1e-2)

targets = (rewards + gamma * value(next_states)).detach()
for it in range(60):
    loss = nn.functional.mse_loss(value(states), targets)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"V(s0) {value(states)[0].item():.3f}, loss {loss.item():.4f}")
