"""https://github.com/GFNOrg/torchgfn/pull/87

The user wanted to train a GFlowNet on the hypergrid with the
trajectory balance loss and a replay buffer (scripts/train.py with
--replay_buffer_size > 0). Reduced from torchgfn at a6527802^:
scripts/train.py's loop, make_sampler's on_policy flag,
ReplayBuffer.add/sample, Trajectories (extend, sample, slicing),
TrajectoriesSampler, DiscreteActionsSampler.sample and
TrajectoryBalance with get_pfs_and_pbs; the hypergrid is 2 x 4, the
estimators two small MLPs on one-hot coordinates.
"""

import torch
import torch.nn as nn
from torch.distributions import Categorical

torch.manual_seed(0)
NDIM, HEIGHT = 2, 4
N_ACTIONS = NDIM + 1  # one increment per dimension, then exit
T = NDIM * (HEIGHT - 1) + 1  # longest trajectory, exit included


def preprocess(states):  # KHot
    one_hot = nn.functional.one_hot(states.clamp(min=0), HEIGHT)
    return one_hot.flatten(1).float()


def forward_masks(states):
    return torch.cat(
        [
            states < HEIGHT - 1,
            torch.ones(len(states), 1, dtype=torch.bool),
        ],
        1,
    )


def log_reward(states):  # hypergrid with R0, R1, R2 = 0.1, 0.5, 2.0
    ax = (states / (HEIGHT - 1) - 0.5).abs()
    r = (
        0.1
        + 0.5 * (ax > 0.25).prod(-1)
        + 2.0 * ((ax > 0.3) & (ax < 0.4)).prod(-1)
    )
    return r.log()


class Trajectories:
    def __init__(self, states, actions, log_probs, log_rewards):
        self.states = states  # (T + 1, n, NDIM), -1 after the exit
        self.actions = actions  # (T, n), -1 after the exit
        self.log_probs = log_probs  # (T, n)
        self.log_rewards = log_rewards  # (n,)

    def __len__(self):
        return self.actions.shape[1]

    def __getitem__(self, index):
        return Trajectories(
            self.states[:, index],
            self.actions[:, index],
            self.log_probs[:, index],
            self.log_rewards[index],
        )

    def extend(self, other):
        self.states = torch.cat((self.states, other.states), 1)
        self.actions = torch.cat((self.actions, other.actions), 1)
        self.log_probs = torch.cat((self.log_probs, other.log_probs), 1)
        self.log_rewards = torch.cat(
            (self.log_rewards, other.log_rewards)
        )

    def sample(self, n_trajectories):
        return self[torch.randperm(len(self))[:n_trajectories]]


class DiscreteActionsSampler:
    def __init__(self, estimator):
        self.estimator = estimator

    def get_logits(self, states):
        logits = self.estimator(preprocess(states))
        logits[~forward_masks(states)] = -float("inf")
        return logits

    def sample(self, states):
        dist = Categorical(logits=self.get_logits(states))
        with torch.no_grad():
            actions = dist.sample()
        actions_log_probs = dist.log_prob(actions)
        return actions_log_probs, actions


class TrajectoriesSampler:
    def __init__(self, actions_sampler):
        self.actions_sampler = actions_sampler

    def sample(self, n_trajectories):
        states = torch.zeros(n_trajectories, NDIM, dtype=torch.long)
        all_states = torch.full((T + 1, n_trajectories, NDIM), -1)
        all_states[0] = states
        actions = torch.full((T, n_trajectories), -1)
        trajectories_logprobs = []
        dones = torch.zeros(n_trajectories, dtype=torch.bool)
        for t in range(T):
            log_probs = torch.full((n_trajectories,), 0.0)
            actions_log_probs, valid_actions = (
                self.actions_sampler.sample(states[~dones])
            )
            log_probs[~dones] = actions_log_probs
            trajectories_logprobs += [log_probs]
            actions[t, ~dones] = valid_actions
            step = nn.functional.one_hot(valid_actions, N_ACTIONS)
            step = step[:, :NDIM]
            exits = valid_actions == NDIM
            new_states = states[~dones] + step
            final = states[~dones][exits]
            idx = (~dones).nonzero().squeeze(1)
            states[idx] = new_states
            all_states[t + 1, idx[~exits]] = new_states[~exits]
            rewards_at = idx[exits]
            if t == 0:
                log_rewards = torch.zeros(n_trajectories)
            log_rewards[rewards_at] = log_reward(final)
            dones[rewards_at] = True
            if dones.all():
                break
        trajectories_logprobs += [torch.zeros(n_trajectories)] * (
            T - len(trajectories_logprobs)
        )
        return Trajectories(
            all_states,
            actions,
            torch.stack(trajectories_logprobs, dim=0),
            log_rewards,
        )


class TrajectoryBalance:
    def __init__(self, logit_PF, logit_PB, logZ, on_policy=False):
        self.actions_sampler = DiscreteActionsSampler(logit_PF)
        self.logit_PB = logit_PB
        self.logZ = logZ
        self.on_policy = on_policy

    def get_pfs_and_pbs(self, trajectories, no_pf=False):
        valid = trajectories.actions != -1
        valid_states = trajectories.states[:-1][valid]
        valid_actions = trajectories.actions[valid]
        log_pf_trajectories = None
        if not no_pf:
            logits = self.actions_sampler.get_logits(valid_states)
            valid_log_pf = (
                logits.log_softmax(-1)
                .gather(-1, valid_actions.unsqueeze(-1))
                .squeeze(-1)
            )
            log_pf_trajectories = torch.zeros(
                trajectories.actions.shape
            )
            log_pf_trajectories[valid] = valid_log_pf
        moves = valid & (trajectories.actions != NDIM)
        next_states = trajectories.states[1:][moves]
        pb_logits = self.logit_PB(preprocess(next_states))
        pb_logits = pb_logits.masked_fill(
            next_states == 0, -float("inf")
        )
        valid_log_pb = (
            pb_logits.log_softmax(-1)
            .gather(-1, trajectories.actions[moves].unsqueeze(-1))
            .squeeze(-1)
        )
        log_pb_trajectories = torch.zeros(trajectories.actions.shape)
        log_pb_trajectories[moves] = valid_log_pb
        return log_pf_trajectories, log_pb_trajectories

    def __call__(self, trajectories):
        log_pf_trajectories, log_pb_trajectories = self.get_pfs_and_pbs(
            trajectories, no_pf=self.on_policy
        )
        if self.on_policy:
            log_pf_trajectories = trajectories.log_probs
        scores = (
            log_pf_trajectories.sum(0)
            - log_pb_trajectories.sum(0)
            - trajectories.log_rewards.clamp_min(-12)
        )
        return (scores + self.logZ).pow(2).mean()


class ReplayBuffer:
    def __init__(self, capacity=1000):
        self.capacity = capacity
        self.training_objects = None

    def add(self, training_objects):
        if self.training_objects is None:
            self.training_objects = training_objects
        else:
            self.training_objects.extend(training_objects)
        self.training_objects = self.training_objects[-self.capacity :]

    def sample(self, n_trajectories):
        return self.training_objects.sample(n_trajectories)


def mlp(n_out):
    return nn.Sequential(
        nn.Linear(NDIM * HEIGHT, 32), nn.ReLU(), nn.Linear(32, n_out)
    )


logit_PF, logit_PB = mlp(N_ACTIONS), mlp(NDIM)
logZ = nn.Parameter(torch.tensor(0.0))
loss_fn = TrajectoryBalance(logit_PF, logit_PB, logZ)
optimizer = torch.optim.Adam(
    [
        {"params": [*logit_PF.parameters(), *logit_PB.parameters()]},
        {"params": [logZ], "lr": 0.1},
    ],
    lr=1e-3,
)
# make_sampler: temperature 1.0, sf_bias 0.0, epsilon 0.0
trajectories_sampler, on_policy = (
    TrajectoriesSampler(DiscreteActionsSampler(logit_PF)),
    True,
)
loss_fn.on_policy = on_policy
replay_buffer = ReplayBuffer(capacity=32)

for i in range(3):
    trajectories = trajectories_sampler.sample(n_trajectories=8)
    training_samples = trajectories
    if replay_buffer is not None:
        replay_buffer.add(training_samples)
        training_objects = replay_buffer.sample(n_trajectories=8)
    else:
        training_objects = training_samples

    optimizer.zero_grad()
    loss = loss_fn(training_objects)
    loss.backward()
    optimizer.step()
    print(
        f"{i}: loss {loss.item():.3f}, "
        f"buffer {len(replay_buffer.training_objects)}"
    )
