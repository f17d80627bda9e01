"""TD3 with torchrl's loss at the time: the actor's and the critic's Q
values come from one vmapped call of the Q-network.

Source: https://github.com/pytorch/rl/issues/1187
The user wanted TD3 with separate actor and critic optimizers: the
actor stepped on loss_actor, then the critic on loss_qvalue.
"""

import copy

import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call

torch.manual_seed(0)
OBS, ACT, N, GAMMA = 4, 2, 16, 0.99

actor = nn.Sequential(nn.Linear(OBS, ACT), nn.Tanh())
qvalue = nn.Sequential(
    nn.Linear(OBS + ACT, 16), nn.ReLU(), nn.Linear(16, 1)
)
actor_target = copy.deepcopy(actor)
qvalue_target = copy.deepcopy(qvalue)
actor_opt = torch.optim.Adam(actor.parameters(), lr=1e-3)
critic_opt = torch.optim.Adam(qvalue.parameters(), lr=1e-3)


def q_call(params, x):
    return functional_call(qvalue, params, (x,))


def td3_loss(obs, action, reward, next_obs):
    """TD3Loss.forward, reduced: one vmapped Q call for both losses."""
    with torch.no_grad():
        noise = (0.2 * torch.randn(N, ACT)).clamp(-0.5, 0.5)
        next_action = (actor_target(next_obs) + noise).clamp(-1, 1)
        next_q = functional_call(
            qvalue_target,
            dict(qvalue_target.named_parameters()),
            (torch.cat([next_obs, next_action], -1),),
        )
        target = reward + GAMMA * next_q
    actor_action = actor(obs)
    params = dict(qvalue.named_parameters())
    # the actor's loss sees the Q-network's parameters detached
    stacked = {
        k: torch.stack([p.detach(), p]) for k, p in params.items()
    }
    inputs = torch.stack(
        [
            torch.cat([obs, actor_action], -1),
            torch.cat([obs, action], -1),
        ]
    )
    q_actor, q_data = torch.vmap(q_call)(stacked, inputs).unbind(0)
    return {
        "loss_actor": -q_actor.mean(),
        "loss_qvalue": F.mse_loss(q_data, target),
    }


for step in range(2):
    obs, next_obs = torch.randn(N, OBS), torch.randn(N, OBS)
    action = torch.rand(N, ACT) * 2 - 1
    reward = torch.randn(N, 1)
    loss = td3_loss(obs, action, reward, next_obs)
    actor_opt.zero_grad()
    loss["loss_actor"].backward()
    actor_opt.step()
    critic_opt.zero_grad()
    loss["loss_qvalue"].backward()
    critic_opt.step()
    print(
        f"step {step}: actor {loss['loss_actor'].item():.3f}, "
        f"qvalue {loss['loss_qvalue'].item():.3f}"
    )
