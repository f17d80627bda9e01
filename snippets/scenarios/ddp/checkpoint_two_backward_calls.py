# Runs two DDP processes (gloo, CPU, loopback): takes a few seconds.
import sys
from pathlib import Path

import torch
from torch.nn.parallel import DistributedDataParallel as DDP
from two_ranks import gap_between_ranks, run_on_two_ranks

# multitask_net.py, from the checkpoint page: beside this script, or
# in a folder named checkpoint beside this one.
sys.path.append(
    str(Path(__file__).resolve().parent.parent / "checkpoint")
)
from multitask_net import MultiTaskNet, batch, losses  # noqa: E402


def new_replica(rank, use_reentrant):
    torch.manual_seed(0)
    model = DDP(MultiTaskNet(use_reentrant=use_reentrant))
    torch.manual_seed(1 + rank)  # each rank gets its own batch
    return model, losses(model, *batch())


def train(rank):
    for use_reentrant in (True, False):
        name = f"use_reentrant={use_reentrant}"
        model, (loss_a, loss_b) = new_replica(rank, use_reentrant)
        loss_a.backward(retain_graph=True)
        try:
            loss_b.backward()
        except RuntimeError as e:
            if rank == 0:
                first_sentence = str(e).split(". ")[0]
                print(f"{name}, two backward calls: {first_sentence}")

        model, (loss_a, loss_b) = new_replica(rank, use_reentrant)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        (loss_a + loss_b).backward()  # one backward per forward
        opt.step()
        gap = gap_between_ranks(model.parameters())
        if rank == 0:
            print(f"{name}, the sum: replicas differ by {gap}")


run_on_two_ranks(train)
