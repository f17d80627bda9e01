# Runs two DDP processes (gloo, CPU, loopback): takes a few seconds.
import copy
from contextlib import nullcontext

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from two_ranks import run_on_two_ranks

TOKENS = [[5, 1, 7], [2, 6, 3]]  # tokens per micro-batch, per rank
N = 3  # micro-batches per optimizer step


def token_losses(model, x, y):
    return (model(x) - y).pow(2).flatten()  # one loss per token


def train(rank):
    torch.manual_seed(0)
    model = DDP(nn.Linear(3, 1))
    big_batch_model = copy.deepcopy(model.module)
    torch.manual_seed(1)  # the data of both ranks
    data = [
        [(torch.randn(t, 3), torch.randn(t, 1)) for t in counts]
        for counts in TOKENS
    ]

    # One process, one backward: the mean over every token of both
    # ranks, the loss the accumulated steps are meant to reproduce.
    x_all = torch.cat([x for micro in data for x, _ in micro])
    y_all = torch.cat([y for micro in data for _, y in micro])
    big_loss = token_losses(big_batch_model, x_all, y_all).mean()
    big_grads = torch.autograd.grad(
        big_loss, list(big_batch_model.parameters())
    )

    def accumulate(loss_of):
        model.zero_grad()
        for i, (x, y) in enumerate(data[rank]):
            last = i == N - 1
            with nullcontext() if last else model.no_sync():
                loss_of(token_losses(model, x, y)).backward()
        pairs = list(zip(model.parameters(), big_grads))
        same = all(torch.allclose(p.grad, g) for p, g in pairs)
        off = max((p.grad - g).abs().max().item() for p, g in pairs)
        return (
            f"same gradient as one big batch: {same} "
            f"(largest difference {off:.4f})"
        )

    world = dist.get_world_size()
    # Tokens of this optimizer step, all micro-batches: known from the
    # data before any forward pass.
    here = torch.tensor(float(sum(TOKENS[rank])))
    everywhere = here.clone()
    dist.all_reduce(everywhere)  # summed over the ranks
    results = {
        "mean per micro-batch / N": accumulate(
            lambda losses: losses.mean() / N
        ),
        "sum / this rank's tokens": accumulate(
            lambda losses: losses.sum() / here
        ),
        # DDP divides the summed gradients by the world size: undo it.
        "sum * world size / all ranks' tokens": accumulate(
            lambda losses: losses.sum() * world / everywhere
        ),
    }
    if rank == 0:
        for name, result in results.items():
            print(f"{name}: {result}")


run_on_two_ranks(train)
