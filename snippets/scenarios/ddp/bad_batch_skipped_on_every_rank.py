# Runs two DDP processes (gloo, CPU, loopback): takes a few seconds.
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from two_ranks import gap_between_ranks, run_on_two_ranks


def batches(rank):
    torch.manual_seed(1 + rank)  # each rank gets its own batches
    data = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]
    if rank == 0:
        data[1][0][0, 0] = float("nan")  # one corrupt sample
    return data


def paired_with(model, x, y, other_batches):
    """Which of the other rank's batches DDP averaged this one with."""

    def grad(x, y):  # unwrapped: no DDP hook fires
        out = model.module(x)
        loss = nn.functional.mse_loss(out, y)
        return torch.autograd.grad(loss, model.module.weight)[0]

    mine = grad(x, y)
    for j, batch in enumerate(other_batches):
        average = (mine + grad(*batch)) / 2
        if torch.allclose(model.module.weight.grad, average):
            return j


def train(rank):
    torch.manual_seed(0)
    model = DDP(nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    other, name = batches(1 - rank), f"rank {rank}"
    for step, (x, y) in enumerate(batches(rank)):
        bad = torch.tensor(float(not torch.isfinite(x).all()))
        # Every rank learns whether any rank's batch is bad.
        dist.all_reduce(bad, op=dist.ReduceOp.MAX)
        if bad.item():
            print(f"{name}, batch {step}: skipped on every rank")
            continue
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        j = paired_with(model, x, y, other)
        opt.step()
        print(
            f"{name}, batch {step}: averaged with rank "
            f"{1 - rank}'s batch {j}"
        )
    dist.monitored_barrier(timeout=timedelta(seconds=10))
    gap = gap_between_ranks(model.parameters())
    print(f"{name}: passed the barrier; replicas differ by {gap}")


run_on_two_ranks(train)
