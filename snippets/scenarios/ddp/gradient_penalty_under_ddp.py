# Runs two DDP processes (gloo, CPU, loopback): takes a few seconds.
import copy

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel as DDP
from two_ranks import gap_between_ranks, run_on_two_ranks

SETUPS = {
    "plain DDP": {},
    "find_unused_parameters=True": {"find_unused_parameters": True},
    "static_graph=True": {"static_graph": True},
    "static_graph=True, .grad all-reduced by hand": {
        "static_graph": True
    },
}


def averaged(tensors):
    tensors = [t.clone() for t in tensors]
    for t in tensors:
        dist.all_reduce(t)
        t /= dist.get_world_size()
    return tensors


def count_allreduce_calls(model):
    """For each bucket DDP averages, record the phase it ran in."""
    phase, calls = [None], []

    def counting_allreduce(state, bucket):
        calls.append(phase[0])
        return default_hooks.allreduce_hook(None, bucket)

    model.register_comm_hook(None, counting_allreduce)
    return phase, calls


def penalized_loss(model, x, y, phase):
    x = x.clone().requires_grad_()
    out = model(x)
    phase[0] = "autograd.grad"
    (grad_x,) = torch.autograd.grad(out.sum(), x, create_graph=True)
    phase[0] = "backward"
    penalty = (grad_x.norm(dim=1) - 1).pow(2).mean()
    return nn.functional.mse_loss(out, y) + penalty


def train(rank):
    for name, options in SETUPS.items():
        torch.manual_seed(0)
        net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
        local = copy.deepcopy(net)  # this rank's gradient, without DDP
        model = DDP(net, **options)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        phase, calls = count_allreduce_calls(model)
        is_average, is_own, in_grad, in_backward = [], [], [], []
        for step in range(3):
            torch.manual_seed(10 * step + rank)  # a batch per rank
            x, y = torch.randn(8, 4), torch.randn(8, 1)
            local.load_state_dict(net.state_dict())
            own = torch.autograd.grad(
                penalized_loss(local, x, y, [None]),
                list(local.parameters()),
            )
            calls.clear()
            opt.zero_grad()
            # --8<-- [start:by_hand]
            penalized_loss(model, x, y, phase).backward()
            if name.endswith("by hand"):  # average .grad here
                for p in model.parameters():
                    dist.all_reduce(p.grad)
                    p.grad /= dist.get_world_size()
            # --8<-- [end:by_hand]
            grads = [p.grad for p in model.parameters()]
            average = averaged(own)  # of (loss + penalty)'s gradient
            is_average.append(all(map(torch.allclose, grads, average)))
            is_own.append(all(map(torch.allclose, grads, own)))
            in_grad.append(calls.count("autograd.grad"))
            in_backward.append(calls.count("backward"))
            opt.step()
        gap = gap_between_ranks(model.parameters())
        if rank == 0:
            print(
                f"{name}: after 3 steps, replicas differ by {gap:.3f}"
            )
            print(
                f"  .grad = average over ranks: {is_average}, "
                f"this rank's own: {is_own}"
            )
            print(
                f"  DDP allreduce calls in autograd.grad: {in_grad}, "
                f"in backward: {in_backward}"
            )


run_on_two_ranks(train)
