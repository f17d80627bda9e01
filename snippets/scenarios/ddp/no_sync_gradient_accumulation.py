# Runs two DDP processes (gloo, CPU, loopback): takes a few seconds.
import copy
from contextlib import nullcontext

import torch
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel as DDP
from two_ranks import run_on_two_ranks

N = 4  # micro-batches per optimizer step


def train(rank):
    torch.manual_seed(0)
    model = DDP(nn.Linear(3, 1))
    big_batch_model = copy.deepcopy(model.module)
    allreduce_calls = []

    def counting_allreduce(state, bucket):
        allreduce_calls.append(bucket.index())
        return default_hooks.allreduce_hook(None, bucket)

    model.register_comm_hook(None, counting_allreduce)
    # The data of both ranks: [rank, micro-batch, sample, feature].
    torch.manual_seed(1)
    xs, ys = torch.randn(2, N, 8, 3), torch.randn(2, N, 8, 1)

    # One process, one backward, every sample of both ranks.
    big_loss = nn.functional.mse_loss(
        big_batch_model(xs.reshape(-1, 3)), ys.reshape(-1, 1)
    )
    big_grads = torch.autograd.grad(
        big_loss, list(big_batch_model.parameters())
    )

    def accumulate(use_no_sync, divide):
        model.zero_grad()
        allreduce_calls.clear()
        for i in range(N):
            last = i == N - 1
            # The forward pass must be inside no_sync() as well.
            skip = model.no_sync() if use_no_sync and not last else None
            with skip or nullcontext():
                out = model(xs[rank, i])
                loss = nn.functional.mse_loss(out, ys[rank, i])
                (loss / N if divide else loss).backward()
        ratio = model.module.weight.grad / big_grads[0]
        same = all(
            torch.allclose(p.grad, g)
            for p, g in zip(model.parameters(), big_grads)
        )
        return (
            f"same gradient as one big batch: {same} "
            f"(ratio {ratio.mean():.2f}), "
            f"allreduce calls: {len(allreduce_calls)}"
        )

    results = {
        "no_sync, loss / N": accumulate(True, True),
        "no no_sync, loss / N": accumulate(False, True),
        "no_sync, loss not divided": accumulate(True, False),
    }
    if rank == 0:
        for name, result in results.items():
            print(f"{name}: {result}")


run_on_two_ranks(train)
