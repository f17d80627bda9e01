# Runs two FSDP processes (gloo, CPU, loopback): takes a few seconds.
import copy

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import fully_shard
from torch.distributed.tensor import DTensor
from two_ranks import run_on_two_ranks


def both_ranks(t):
    both = [torch.empty_like(t) for _ in range(2)]
    dist.all_gather(both, t)
    return torch.cat(both)


def held(model):
    """Parameter values this rank holds: a shard, or all of them."""
    return sum(
        p.to_local().numel() if isinstance(p, DTensor) else p.numel()
        for p in model.parameters()
    )


def penalized_loss(model, x, y, keep_unsharded=None):
    x = x.clone().requires_grad_()
    out = model(x)
    if keep_unsharded:
        model.set_reshard_after_backward(False)  # the fix, 1 of 2
    (grad_x,) = torch.autograd.grad(out.sum(), x, create_graph=True)
    if keep_unsharded:
        model.set_reshard_after_backward(True)  # the fix, 2 of 2
        keep_unsharded.append(held(model))
    penalty = (grad_x.norm(dim=1) - 1).pow(2).mean()
    return nn.functional.mse_loss(out, y) + penalty


def train(rank):
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    alone = copy.deepcopy(net)  # one process, both ranks' batches
    for layer in (net[0], net[2]):
        fully_shard(layer)
    model = fully_shard(net)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    opt_alone = torch.optim.SGD(alone.parameters(), lr=0.1)
    for step in range(3):
        torch.manual_seed(10 * step + rank)  # a batch per rank
        x, y = torch.randn(8, 4), torch.randn(8, 1)
        opt.zero_grad()
        sizes = [held(model)]
        penalized_loss(model, x, y, keep_unsharded=sizes).backward()
        sizes.append(held(model))
        opt.step()
        opt_alone.zero_grad()
        penalized_loss(alone, both_ranks(x), both_ranks(y)).backward()
        opt_alone.step()
        full = [p.full_tensor() for p in model.parameters()]
        same = all(map(torch.allclose, full, alone.parameters()))
        if rank == 0:
            print(
                f"step {step}: weights = one process on both batches: "
                f"{same}; values held before/between/after: {sizes}"
            )


run_on_two_ranks(train)
