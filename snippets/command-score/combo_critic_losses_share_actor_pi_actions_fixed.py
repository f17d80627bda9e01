"""COMBO's critic update (OfflineRL-Kit), the policy's actions for the
conservative penalty sampled without a graph.

Source: https://github.com/yihaosun1124/OfflineRL-Kit/issues/15
The user wanted COMBO's two conservative critics, each stepped by its
own optimizer, without keeping the graph after critic1's backward.
"""

import copy
import math

import torch
from torch import nn

torch.manual_seed(0)
OBS, ACT, N, REPEAT, GAMMA, ALPHA, TEMP = 3, 2, 8, 4, 0.99, 0.2, 1.0


class Actor(nn.Module):
    """actforward(): a tanh-Gaussian policy, reparameterised."""

    def __init__(self):
        super().__init__()
        self.net = nn.Linear(OBS, 2 * ACT)

    def forward(self, obs):
        mu, log_std = self.net(obs).chunk(2, -1)
        std = log_std.clamp(-5, 2).exp()
        dist = torch.distributions.Normal(mu, std)
        u = dist.rsample()
        a = torch.tanh(u)
        log_prob = dist.log_prob(u) - torch.log(1 - a.pow(2) + 1e-6)
        return a, log_prob.sum(-1, keepdim=True)


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(OBS + ACT, 16), nn.ReLU(), nn.Linear(16, 1)
        )

    def forward(self, obs, act):
        return self.net(torch.cat([obs, act], -1))


actor, critic1, critic2 = Actor(), Critic(), Critic()
critic1_old = copy.deepcopy(critic1)
critic2_old = copy.deepcopy(critic2)
actor_optim = torch.optim.Adam(actor.parameters(), lr=1e-3)
critic1_optim = torch.optim.Adam(critic1.parameters(), lr=1e-3)
critic2_optim = torch.optim.Adam(critic2.parameters(), lr=1e-3)


def calc_pi_values(obs_pi, obs_to_pred):
    # the policy's actions are samples for the critics' penalty: the
    # critic losses do not train the actor
    with torch.no_grad():
        act, log_prob = actor(obs_pi)
    q1 = critic1(obs_to_pred, act)
    q2 = critic2(obs_to_pred, act)
    return q1 - log_prob.detach(), q2 - log_prob.detach()


def calc_random_values(obs, random_act):
    q1 = critic1(obs, random_act)
    q2 = critic2(obs, random_act)
    log_prob = math.log(0.5 ** random_act.shape[-1])
    return q1 - log_prob, q2 - log_prob


def learn(real, fake):
    obss, actions, next_obss, rewards, terminals = (
        torch.cat([r, f]) for r, f in zip(real, fake)
    )
    # update actor
    a, log_probs = actor(obss)
    q1a, q2a = critic1(obss, a), critic2(obss, a)
    actor_loss = (ALPHA * log_probs - torch.min(q1a, q2a)).mean()
    actor_optim.zero_grad()
    actor_loss.backward()
    actor_optim.step()
    # td error
    with torch.no_grad():
        next_actions, _ = actor(next_obss)
        next_q = torch.min(
            critic1_old(next_obss, next_actions),
            critic2_old(next_obss, next_actions),
        )
    target_q = rewards + GAMMA * (1 - terminals) * next_q
    q1, q2 = critic1(obss, actions), critic2(obss, actions)
    critic1_loss = (q1 - target_q).pow(2).mean()
    critic2_loss = (q2 - target_q).pow(2).mean()
    # conservative loss
    n = len(obss)
    random_actions = torch.empty(n * REPEAT, ACT).uniform_(-1, 1)
    tmp_obss = obss.unsqueeze(1).repeat(1, REPEAT, 1).view(-1, OBS)
    tmp_next = next_obss.unsqueeze(1).repeat(1, REPEAT, 1).view(-1, OBS)
    obs_pi1, obs_pi2 = calc_pi_values(tmp_obss, tmp_obss)
    next_pi1, next_pi2 = calc_pi_values(tmp_next, tmp_obss)
    rand1, rand2 = calc_random_values(tmp_obss, random_actions)
    cat_q1 = torch.cat([obs_pi1, next_pi1, rand1], 1)
    cat_q2 = torch.cat([obs_pi2, next_pi2, rand2], 1)
    real_q1 = critic1(real[0], real[1])
    real_q2 = critic2(real[0], real[1])
    lse1 = torch.logsumexp(cat_q1 / TEMP, dim=1).mean() * TEMP
    lse2 = torch.logsumexp(cat_q2 / TEMP, dim=1).mean() * TEMP
    critic1_loss = critic1_loss + lse1 - real_q1.mean()
    critic2_loss = critic2_loss + lse2 - real_q2.mean()
    # update critic
    actor_grad = actor.net.weight.grad.clone()
    critic1_optim.zero_grad()
    critic1_loss.backward()
    critic1_optim.step()
    critic2_optim.zero_grad()
    critic2_loss.backward()
    critic2_optim.step()
    return (
        critic1_loss.item(),
        critic2_loss.item(),
        critic2.net[0].weight.grad.norm().item(),
        torch.equal(actor.net.weight.grad, actor_grad),
    )


def batch():
    return (
        torch.randn(N, OBS),
        torch.rand(N, ACT) * 2 - 1,
        torch.randn(N, OBS),
        torch.randn(N, 1),
        torch.zeros(N, 1),
    )


for step in range(2):
    c1, c2, g2, kept = learn(batch(), batch())
    print(
        f"step {step}: critic1 {c1:.3f}, critic2 {c2:.3f}, "
        f"critic2 grad norm {g2:.4f}, "
        f"actor's grad as its loss left it: {kept}"
    )
