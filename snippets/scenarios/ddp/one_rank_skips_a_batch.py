# Runs two DDP processes (gloo, CPU, loopback): takes a few seconds.
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from two_ranks import run_on_two_ranks


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
    try:
        for step, (x, y) in enumerate(batches(rank)):
            if not torch.isfinite(x).all():
                print(f"{name}, batch {step}: skipped")
                continue  # on this rank only
            loss = nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            j = paired_with(model, x, y, other)
            opt.step()
            print(
                f"{name}, batch {step}: averaged with rank "
                f"{1 - rank}'s batch {j}"
            )
    except RuntimeError as e:
        print(f"{name}, batch {step}: raised {type(e).__name__}")
        dist.destroy_process_group()  # a timed-out group is broken
        return
    try:
        # End of the epoch: PyTorch's check that every rank is here.
        dist.monitored_barrier(timeout=timedelta(seconds=2))
    except RuntimeError as e:
        print(f"{name}: {str(e).splitlines()[0]}")
        dist.destroy_process_group()


run_on_two_ranks(train)
