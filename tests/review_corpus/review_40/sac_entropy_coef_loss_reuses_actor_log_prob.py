# Source: https://github.com/DLR-RM/stable-baselines3/blob/master/stable_baselines3/sac/sac.py
# (SAC.train, automatic entropy tuning). Reduced as a re-implementation that
# dropped the .detach() on (log_prob + target_entropy) in the entropy-coefficient
# loss. The ent-coef loss should train ONLY log_ent_coef; the actor is trained
# afterwards by actor_loss, which reuses the same log_prob.
import torch
from torch import nn

torch.manual_seed(0)
obs_dim, act_dim = 3, 1
actor = nn.Sequential(nn.Linear(obs_dim, 32), nn.ReLU(), nn.Linear(32, 2 * act_dim))
critic = nn.Sequential(nn.Linear(obs_dim + act_dim, 32), nn.ReLU(), nn.Linear(32, 1))
log_ent_coef = torch.zeros(1, requires_grad=True)
actor_opt = torch.optim.Adam(actor.parameters(), lr=3e-3)
critic_opt = torch.optim.Adam(critic.parameters(), lr=3e-3)
ent_coef_opt = torch.optim.Adam([log_ent_coef], lr=3e-3)
target_entropy = -float(act_dim)


def action_log_prob(obs):
    mean, log_std = actor(obs).chunk(2, dim=-1)
    dist = torch.distributions.Normal(mean, log_std.clamp(-5, 2).exp())
    u = dist.rsample()
    a = torch.tanh(u)
    return a, (dist.log_prob(u) - torch.log(1 - a.pow(2) + 1e-6)).sum(-1, keepdim=True)


for step in range(3):
    obs, act = torch.randn(64, obs_dim), torch.rand(64, act_dim) * 2 - 1
    rew = -(act**2).sum(-1, keepdim=True)
    actions_pi, log_prob = action_log_prob(obs)
    ent_coef = torch.exp(log_ent_coef.detach())
    ent_coef_loss = -(log_ent_coef * (log_prob + target_entropy)).mean()  # no .detach()
    ent_coef_opt.zero_grad()
    ent_coef_loss.backward()
    ent_coef_opt.step()

    critic_loss = 0.5 * (critic(torch.cat([obs, act], 1)) - rew).pow(2).mean()
    critic_opt.zero_grad()
    critic_loss.backward()
    critic_opt.step()

    min_qf_pi = critic(torch.cat([obs, actions_pi], 1))
    actor_loss = (ent_coef * log_prob - min_qf_pi).mean()
    actor_opt.zero_grad()
    actor_loss.backward()  # RuntimeError: log_prob's actor graph was freed above
    actor_opt.step()
    print(step, actor_loss.item(), log_ent_coef.item())
