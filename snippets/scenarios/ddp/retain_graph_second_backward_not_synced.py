# Runs two DDP processes (gloo, CPU, loopback): takes a few seconds.
import copy

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from two_ranks import gap_between_ranks, run_on_two_ranks

SETUPS = {
    "plain DDP": {},
    "find_unused_parameters=True": {"find_unused_parameters": True},
    "static_graph=True": {"static_graph": True},
}


def averaged(tensors):
    tensors = [t.clone() for t in tensors]
    for t in tensors:
        dist.all_reduce(t)
        t /= dist.get_world_size()
    return tensors


def train(rank):
    for name, options in SETUPS.items():
        torch.manual_seed(0)
        model = DDP(nn.Linear(3, 1), **options)
        # The same weights without DDP, to compute each loss's own
        # gradient on this rank.
        local = copy.deepcopy(model.module)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        torch.manual_seed(1 + rank)  # each rank gets its own batch
        x, y = torch.randn(8, 3), torch.randn(8, 1)

        out = model(x)
        loss_a = nn.functional.mse_loss(out, y)
        loss_b = out.abs().mean()
        loss_a.backward(retain_graph=True)
        loss_b.backward()

        out = local(x)
        params = list(local.parameters())
        grad_a = torch.autograd.grad(
            nn.functional.mse_loss(out, y), params, retain_graph=True
        )
        grad_b = torch.autograd.grad(out.abs().mean(), params)
        # DDP averaged loss_a's gradients; loss_b's stayed local.
        expected = [
            g_a + g_b for g_a, g_b in zip(averaged(grad_a), grad_b)
        ]
        grads = [p.grad for p in model.parameters()]
        as_expected = all(map(torch.allclose, grads, expected))
        opt.step()
        gap = gap_between_ranks(model.parameters())
        if rank == 0:
            print(
                f"{name}: .grad = averaged loss_a grad + local "
                f"loss_b grad: {as_expected}; replicas differ by "
                f"{gap:.4f}"
            )


run_on_two_ranks(train)
