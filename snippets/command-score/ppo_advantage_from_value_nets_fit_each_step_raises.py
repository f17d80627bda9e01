"""PPO by hand: value functions fitted at every time step, the clipped
surrogate summed over the episode.

Source: https://discuss.pytorch.org/t/pytorch-runtimeerror-trying-to-backward-through-the-graph-a-second-time/191396
The user wanted PPO: at each step, fit V(s) and Q(s, a) by gradient
descent, compute the advantage and the clipped surrogate; at the end
of the episode, ascend the mean surrogate to train the policy.
"""

import copy

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
S, A, T, CLIP, GAMMA = 4, 3, 6, 0.2, 0.9

policy = nn.Linear(S, A)
v_net = nn.Linear(S, 1)
q_net = nn.Linear(S + A, 1)
pi_opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
v_opt = torch.optim.SGD(v_net.parameters(), lr=1e-2)
q_opt = torch.optim.SGD(q_net.parameters(), lr=1e-2)
reward_w = torch.randn(S, A)

for episode in range(2):
    old_policy = copy.deepcopy(policy)
    surrogates = []
    state = torch.randn(S)
    for t in range(T):
        dist = torch.distributions.Categorical(logits=policy(state))
        action = dist.sample()
        with torch.no_grad():
            old = old_policy(state).log_softmax(-1)[action]
        reward = (state @ reward_w)[action]
        next_state = torch.randn(S)
        one_hot = F.one_hot(action, A).float()
        # fit V(s) and Q(s, a) at this step
        v = v_net(state)
        q = q_net(torch.cat([state, one_hot]))
        with torch.no_grad():
            target = reward + GAMMA * v_net(next_state)
        v_loss = F.mse_loss(v, target)
        v_opt.zero_grad()
        v_loss.backward()
        v_opt.step()
        q_loss = F.mse_loss(q, target)
        q_opt.zero_grad()
        q_loss.backward()
        q_opt.step()
        # clipped surrogate at this step
        advantage = q - v
        ratio = torch.exp(dist.log_prob(action) - old)
        clipped = ratio.clamp(1 - CLIP, 1 + CLIP)
        surrogates.append(
            torch.min(ratio * advantage, clipped * advantage)
        )
        state = next_state
    # stochastic gradient ascent on the mean surrogate
    pi_loss = -torch.stack(surrogates).mean()
    pi_opt.zero_grad()
    pi_loss.backward()
    pi_opt.step()
    print(f"episode {episode}: surrogate {-pi_loss.item():.4f}")
