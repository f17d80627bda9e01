# Runs two DDP processes (gloo, CPU, loopback): takes a few seconds.
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.functional import cross_entropy
from torch.nn.parallel import DistributedDataParallel as DDP
from two_ranks import gap_between_ranks, run_on_two_ranks


def sampled_loss(logits):  # Sophia's loss on sampled labels
    sampler = torch.distributions.Categorical(logits=logits.detach())
    return cross_entropy(logits, sampler.sample())


def autograd_grad_both(model, opt, x, y):
    # The single-process fix: DDP sees neither gradient.
    params = list(model.parameters())
    logits = model(x)
    loss = cross_entropy(logits, y)
    grads = torch.autograd.grad(loss, params, retain_graph=True)
    grads_hat = torch.autograd.grad(sampled_loss(logits), params)
    for p, g in zip(params, grads):
        p.grad = g
    opt.step()
    opt.zero_grad()
    return [len(x) * g**2 for g in grads_hat]


def all_reduce_the_estimate(model, opt, x, y):
    params, world = list(model.parameters()), dist.get_world_size()
    logits = model(x)
    grads_hat = torch.autograd.grad(
        sampled_loss(logits), params, retain_graph=True
    )
    cross_entropy(logits, y).backward()  # through DDP: averaged
    for g in grads_hat:  # autograd.grad's result: average it here
        dist.all_reduce(g)
        g /= world
    opt.step()
    opt.zero_grad()
    # The gradient of the global batch, times its size.
    return [world * len(x) * g**2 for g in grads_hat]


def fresh_forward(model, opt, x, y):
    cross_entropy(model(x), y).backward()
    opt.step()
    opt.zero_grad()
    sampled_loss(model(x)).backward()  # its own forward: averaged
    world = dist.get_world_size()
    h = [world * len(x) * p.grad**2 for p in model.parameters()]
    opt.zero_grad()
    return h


SETUPS = {
    "plain DDP": {},
    "find_unused_parameters=True": {"find_unused_parameters": True},
    "static_graph=True": {"static_graph": True},
}


def train(rank):
    for setup, options in SETUPS.items():
        if rank == 0:
            print(setup)
        for step_with in (
            autograd_grad_both,
            all_reduce_the_estimate,
            fresh_forward,
        ):
            torch.manual_seed(0)
            net = nn.Sequential(
                nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3)
            )
            model = DDP(net, **options)
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            torch.manual_seed(1 + rank)  # each rank gets its own batch
            x, y = torch.randn(16, 4), torch.randint(0, 3, (16,))
            for step in range(3):
                h = step_with(model, opt, x, y)
            gap = gap_between_ranks(model.parameters())
            h_gap = gap_between_ranks(h)
            if rank == 0:
                print(
                    f"  {step_with.__name__}: after 3 steps, replicas "
                    f"differ by {gap:.4g}, their h by {h_gap:.4g}"
                )


run_on_two_ranks(train)
