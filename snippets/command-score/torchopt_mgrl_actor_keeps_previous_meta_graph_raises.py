"""torchopt's MetaSGD stepping a PPO actor on advantages from a learned
reward network, the actor carried into the next meta-iteration with
the graph of the last one.

Source: https://github.com/metaopt/torchopt/issues/221
The user wanted meta-gradient reinforcement learning in PPO: for each
of K epochs, a MetaSGD step of the actor on the clipped surrogate
whose advantages come from a learned reward network, then the clipped
surrogate on the environment's advantages, backpropagated through
that step into the reward network, and an Adam step on the reward
network; the actor goes on from its updated parameters.
Kept: MetaSGD's differentiable step (each actor parameter replaced
in the module by parameter - lr * grad, the gradient taken with
create_graph=True), the policy's evaluate (log-probabilities of the
old actions), ratios against the old log-probabilities, the clipped
surrogate, Adam on the reward network; changed: a small categorical
actor and a linear reward network on random states, actions and
advantages, one inner step per epoch, two epochs.
"""

import torch
from torch import nn
from torch.distributions import Categorical

torch.manual_seed(0)
N, OBS, ACTIONS, K_EPOCHS = 16, 4, 3, 2
LR_ACTOR, LR_META, EPS_CLIP = 0.5, 0.05, 0.2


class MetaSGD:
    # torchopt.MetaSGD: a differentiable SGD step on a module
    def __init__(self, module, lr):
        self.module, self.lr = module, lr

    def step(self, loss):
        slots = [
            (mod, name)
            for mod in self.module.modules()
            for name in list(mod._parameters)
        ]
        params = [mod._parameters[name] for mod, name in slots]
        grads = torch.autograd.grad(loss, params, create_graph=True)
        for (mod, name), p, g in zip(slots, params, grads):
            mod._parameters[name] = p - self.lr * g


def surrogate(logprobs, old_logprobs, advantages):
    ratios = torch.exp(logprobs - old_logprobs.detach())
    surr1 = ratios * advantages
    clipped = torch.clamp(ratios, 1 - EPS_CLIP, 1 + EPS_CLIP)
    return -torch.min(surr1, clipped * advantages).mean()


actor = nn.Sequential(
    nn.Linear(OBS, 16), nn.Tanh(), nn.Linear(16, ACTIONS)
)
rewardnet = nn.Linear(OBS, 1)
inner_opt = MetaSGD(actor, lr=LR_ACTOR)
meta_opt = torch.optim.Adam(rewardnet.parameters(), lr=LR_META)

old_states = torch.randn(N, OBS)
old_actions = torch.randint(0, ACTIONS, (N,))
advantages = torch.randn(N)
with torch.no_grad():
    old_logprobs = Categorical(logits=actor(old_states)).log_prob(
        old_actions
    )


def evaluate(states, actions):
    return Categorical(logits=actor(states)).log_prob(actions)


for epoch in range(K_EPOCHS):
    advantages_g = rewardnet(old_states).squeeze(-1)
    logprobs = evaluate(old_states, old_actions)
    inner_opt.step(surrogate(logprobs, old_logprobs, advantages_g))

    logprobs = evaluate(old_states, old_actions)
    outer_loss = surrogate(logprobs, old_logprobs, advantages)
    meta_opt.zero_grad()
    print(f"epoch {epoch}: outer loss {outer_loss.item():.4f}")
    outer_loss.backward()
    meta_opt.step()
