# TD3+BC (Fujimoto & Gu 2021, sfujim/TD3_BC, TD3_BC.py): offline RL.
# The critic learns clipped double-Q targets; every policy_freq steps
# the actor maximizes lambda * Q(s, pi(s)) while staying close to the
# dataset's actions. Reduced: a random fixed dataset.
import copy

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
S, A, N, BATCH = 6, 2, 512, 64
max_action, discount, tau = 1.0, 0.99, 0.005
policy_noise, noise_clip, policy_freq, alpha = 0.2, 0.5, 2, 2.5


class Actor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(S, 64), nn.ReLU(), nn.Linear(64, A))

    def forward(self, state):
        return max_action * torch.tanh(self.net(state))


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.q1 = nn.Sequential(nn.Linear(S + A, 64), nn.ReLU(), nn.Linear(64, 1))
        self.q2 = nn.Sequential(nn.Linear(S + A, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, state, action):
        sa = torch.cat([state, action], 1)
        return self.q1(sa), self.q2(sa)

    def Q1(self, state, action):
        return self.q1(torch.cat([state, action], 1))


actor = Actor()
actor_target = copy.deepcopy(actor)
actor_optimizer = torch.optim.Adam(actor.parameters(), lr=3e-4)
critic = Critic()
critic_target = copy.deepcopy(critic)
critic_optimizer = torch.optim.Adam(critic.parameters(), lr=3e-4)
states = torch.randn(N, S)
actions = torch.tanh(states[:, :A] + 0.3 * torch.randn(N, A))
rewards = -(actions - 0.5 * states[:, A:2 * A]).pow(2).sum(1, keepdim=True)
next_states = states + 0.1 * torch.randn(N, S)
not_dones = torch.ones(N, 1)


def reaches(losses, params):
    # do these losses' graphs lead to any of params? (walks grad_fn)
    ids, seen, todo = {id(p) for p in params}, set(), [lo.grad_fn for lo in losses]
    while todo:
        fn = todo.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        if id(getattr(fn, "variable", None)) in ids:
            return True
        todo.extend(f for f, _ in fn.next_functions)
    return False


for total_it in range(1, 9):
    idx = torch.randint(N, (BATCH,))
    state, action, reward = states[idx], actions[idx], rewards[idx]
    next_state, not_done = next_states[idx], not_dones[idx]
    with torch.no_grad():
        noise = (torch.randn_like(action) * policy_noise).clamp(-noise_clip, noise_clip)
        next_action = (actor_target(next_state) + noise).clamp(-max_action, max_action)
        target_Q1, target_Q2 = critic_target(next_state, next_action)
        target_Q = reward + not_done * discount * torch.min(target_Q1, target_Q2)
    current_Q1, current_Q2 = critic(state, action)
    critic_loss = F.mse_loss(current_Q1, target_Q) + F.mse_loss(current_Q2, target_Q)
    critic_optimizer.zero_grad()
    critic_loss.backward()
    critic_optimizer.step()

    if total_it % policy_freq == 0:
        pi = actor(state)
        actor_optimizer.zero_grad()
        bc_loss = F.mse_loss(pi, action)
        # through the critic: its Q1 gets grads that
        # critic_optimizer.zero_grad() clears before the critic's step
        Q = critic.Q1(state, pi)
        lmbda = alpha / Q.abs().mean().detach()
        q_loss = -lmbda * Q.mean()
        q1_before = [p.grad.clone() for p in critic.q1.parameters()]
        actor_loss = q_loss + bc_loss
        actor_loss.backward()
        reach = reaches([q_loss], actor.parameters())
        critic_written = all(not torch.equal(b, p.grad)
                             for b, p in zip(q1_before, critic.q1.parameters()))
        actor_optimizer.step()
        with torch.no_grad():
            for param, target_param in zip(critic.parameters(), critic_target.parameters()):
                target_param.data.copy_(tau * param.data + (1 - tau) * target_param.data)
            for param, target_param in zip(actor.parameters(), actor_target.parameters()):
                target_param.data.copy_(tau * param.data + (1 - tau) * target_param.data)
        print(f"it {total_it}: the Q term reaches the actor: {reach}; it "
              f"wrote grads into the critic's Q1: {critic_written} "
              "(critic_optimizer.zero_grad() clears them)")
