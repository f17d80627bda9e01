"""torchopt's MetaSGD stepping a PPO actor on advantages from a learned
reward network, the actor's parameters cut from the last
meta-iteration's graph after the reward network's step, as
torchopt.stop_gradient does.

Source: https://github.com/metaopt/torchopt/issues/221
The user wanted meta-gradient reinforcement learning in PPO: for each
of K epochs, a MetaSGD step of the actor on the clipped surrogate
whose advantages come from a learned reward network, then the clipped
surrogate on the environment's advantages, backpropagated through
that step into the reward network, and an Adam step on the reward
network; the actor goes on from its updated parameters.
The answer points to torchopt's MGRL example and its stop-gradient
tutorial: where the inner-loop parameters go on into the next
bi-level step, torchopt.stop_gradient(actor) after the meta step
detaches each of them in place and makes it a leaf again. Kept and
changed as in the raising program.
"""

import torch
from torch import nn
from torch.distributions import Categorical
from torch.func import functional_call

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


def stop_gradient(module):
    # torchopt.stop_gradient: each parameter a leaf again, in place
    for p in module.parameters():
        p.detach_().requires_grad_()


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


def fresh_meta_gradient(start):
    # the epoch rebuilt from leaf copies of the actor's parameters
    names = [name for name, _ in actor.named_parameters()]
    params = [p.requires_grad_() for p in start]
    meta = [
        p.detach().clone().requires_grad_()
        for p in rewardnet.parameters()
    ]

    def logp(ps):
        logits = functional_call(
            actor, dict(zip(names, ps)), (old_states,)
        )
        return Categorical(logits=logits).log_prob(old_actions)

    adv = functional_call(
        rewardnet, dict(zip(["weight", "bias"], meta)), (old_states,)
    ).squeeze(-1)
    inner = surrogate(logp(params), old_logprobs, adv)
    grads = torch.autograd.grad(inner, params, create_graph=True)
    fast = [p - LR_ACTOR * g for p, g in zip(params, grads)]
    outer = surrogate(logp(fast), old_logprobs, advantages)
    return torch.autograd.grad(outer, meta)


for epoch in range(K_EPOCHS):
    start = [p.detach().clone() for p in actor.parameters()]
    advantages_g = rewardnet(old_states).squeeze(-1)
    logprobs = evaluate(old_states, old_actions)
    inner_opt.step(surrogate(logprobs, old_logprobs, advantages_g))

    logprobs = evaluate(old_states, old_actions)
    outer_loss = surrogate(logprobs, old_logprobs, advantages)
    meta_opt.zero_grad()
    print(f"epoch {epoch}: outer loss {outer_loss.item():.4f}")
    outer_loss.backward()
    ref = fresh_meta_gradient(start)
    got = [p.grad for p in rewardnet.parameters()]
    same = all(torch.allclose(g, r) for g, r in zip(got, ref))
    moved = all(g.abs().sum() > 0 for g in got)
    print(
        f"epoch {epoch}: reward network's gradient as from a fresh "
        f"forward: {same}, nonzero: {moved}"
    )
    meta_opt.step()
    stop_gradient(actor)
