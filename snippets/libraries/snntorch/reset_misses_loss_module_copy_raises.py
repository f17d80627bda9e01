"""https://github.com/jeshraghian/snntorch/issues/340

snntorch 1.0.0 (torchrl's loss module is reduced to its deepcopy).
The user wanted to train a spiking PPO actor (population encoder,
spiking MLP, decoder) whose modules reset their Leaky neurons at the
start of every forward, over several mini-batches per rollout.
"""

import copy

import snntorch as snn
import torch
import torch.nn as nn
from snntorch import utils

torch.manual_seed(0)
num_steps = 4


class PopulationEncoder(nn.Module):
    def __init__(self, obs_dim, pop_size):
        super().__init__()
        self.mu = nn.Parameter(
            torch.linspace(-1, 1, pop_size).repeat(obs_dim, 1)
        )
        self.sigma = nn.Parameter(torch.full((obs_dim, pop_size), 0.5))
        self.net = nn.Sequential(snn.Leaky(beta=0.9, init_hidden=True))

    def forward(self, obs):
        utils.reset(self.net)
        d = (obs.unsqueeze(-1) - self.mu) / self.sigma
        current = torch.exp(-d.pow(2)).flatten(-2) * 2
        steps = [self.net(current) for _ in range(num_steps)]
        return torch.stack(steps)


class SpikingMLP(nn.Module):
    def __init__(self, n_in, n_hidden):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_in, n_hidden),
            snn.Leaky(beta=0.9, init_hidden=True),
            nn.Linear(n_hidden, n_hidden),
            snn.Leaky(beta=0.9, init_hidden=True),
        )

    def forward(self, spikes):
        utils.reset(self.net)
        return torch.stack([self.net(s) for s in spikes])


class PopulationDecoder(nn.Module):
    def __init__(self, n_hidden, act_dim):
        super().__init__()
        self.decode = nn.Linear(n_hidden, act_dim)

    def forward(self, spikes):
        return self.decode(spikes.mean(0))


actor = nn.Sequential(
    PopulationEncoder(2, 8),
    SpikingMLP(16, 32),
    PopulationDecoder(32, 2),
)
critic = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 1))


class ClipPPOLoss(nn.Module):
    """torchrl's LossModule.convert_to_functional deep-copies the
    actor; the copy runs with the actor's own parameters."""

    def __init__(self, actor, critic, clip=0.2):
        super().__init__()
        self.actor_network = copy.deepcopy(actor)
        for name, p in actor.named_parameters():
            owner, _, leaf = name.rpartition(".")
            setattr(self.actor_network.get_submodule(owner), leaf, p)
        self.critic = critic
        self.clip = clip

    def forward(self, obs, action, old_log_prob, advantage, ret):
        dist = torch.distributions.Normal(self.actor_network(obs), 0.5)
        ratio = (dist.log_prob(action).sum(-1) - old_log_prob).exp()
        clipped = ratio.clamp(1 - self.clip, 1 + self.clip)
        gain = torch.min(ratio * advantage, clipped * advantage)
        value = self.critic(obs).squeeze(-1)
        return -gain.mean() + (value - ret).pow(2).mean()


loss_module = ClipPPOLoss(actor, critic)


def in_registry(module):
    """Whether snntorch's class-level registry lists each Leaky."""
    registry = snn.SpikingNeuron.instances
    return [
        any(m is r for r in registry)
        for m in module.modules()
        if isinstance(m, snn.Leaky)
    ]


print(f"actor's Leaky in the registry: {in_registry(actor)}")
copy_ = in_registry(loss_module.actor_network)
print(f"the loss module's copy's Leaky: {copy_}")
optim = torch.optim.Adam(loss_module.parameters(), lr=3e-3)


def rollout(n_frames=16):
    obs, frames = torch.rand(2) * 2 - 1, []
    with torch.no_grad():  # as torchrl's collectors do
        for _ in range(n_frames):
            dist = torch.distributions.Normal(actor(obs[None])[0], 0.5)
            action = dist.sample()
            reward = -obs.pow(2).sum()
            log_prob = dist.log_prob(action).sum()
            frames.append((obs, action, log_prob, reward))
            obs = (obs + 0.1 * action).clamp(-1, 1)
    obs, action, log_prob, reward = map(torch.stack, zip(*frames))
    ret = reward.flip(0).cumsum(0).flip(0) / n_frames
    with torch.no_grad():
        advantage = ret - critic(obs).squeeze(-1)
    return obs, action, log_prob, advantage, ret


data = rollout()
for start in range(0, 16, 8):  # two mini-batches of 8 frames
    batch = [t[start : start + 8] for t in data]
    loss = loss_module(*batch)
    optim.zero_grad()
    loss.backward()
    optim.step()
    print(f"mini-batch {start // 8}: loss {loss.item():.4f}")
