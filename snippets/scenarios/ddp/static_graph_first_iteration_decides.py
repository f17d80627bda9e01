# Runs two DDP processes (gloo, CPU, loopback): takes a few seconds.
import copy

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from two_ranks import gap_between_ranks, run_on_two_ranks

SCHEDULES = {  # a gradient penalty at which of four steps
    "no, yes, yes, yes": [False, True, True, True],
    "yes, no, yes, yes": [True, False, True, True],
    "no, yes, no, yes": [False, True, False, True],  # every 2nd
    "yes, no, yes, no": [True, False, True, False],  # every 2nd
}


def averaged(tensors):
    tensors = [t.clone() for t in tensors]
    for t in tensors:
        dist.all_reduce(t)
        t /= dist.get_world_size()
    return tensors


def loss_of(model, x, y, penalty):
    x = x.clone().requires_grad_()
    out = model(x)
    loss = nn.functional.mse_loss(out, y)
    if penalty:  # a pass through the outputs before backward()
        (grad_x,) = torch.autograd.grad(out.sum(), x, create_graph=True)
        loss = loss + (grad_x.norm(dim=1) - 1).pow(2).mean()
    return loss


def train(rank):
    for name, schedule in SCHEDULES.items():
        torch.manual_seed(0)
        net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
        local = copy.deepcopy(net)  # this rank's gradient, without DDP
        model = DDP(net, static_graph=True)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        is_average = []
        for step, penalty in enumerate(schedule):
            torch.manual_seed(10 * step + rank)  # a batch per rank
            x, y = torch.randn(8, 4), torch.randn(8, 1)
            local.load_state_dict(net.state_dict())
            own = torch.autograd.grad(
                loss_of(local, x, y, penalty), list(local.parameters())
            )
            opt.zero_grad()
            loss_of(model, x, y, penalty).backward()
            grads = [p.grad for p in model.parameters()]
            average = averaged(own)
            is_average.append(all(map(torch.allclose, grads, average)))
            opt.step()
        gap = gap_between_ranks(model.parameters())
        if rank == 0:
            print(f"penalty at steps [{name}]:")
            print(
                f"  .grad = average over ranks: {is_average}; "
                f"replicas differ by {gap:.3f}"
            )


run_on_two_ranks(train)
