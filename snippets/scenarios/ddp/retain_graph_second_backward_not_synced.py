# Runs two DDP processes (gloo, CPU, loopback): takes a few seconds.
import copy
import socket
import subprocess
import sys
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

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


def gap_between_ranks(params):
    flat = torch.cat([p.detach().flatten() for p in params])
    both = [torch.empty_like(flat) for _ in range(2)]
    dist.all_gather(both, flat)
    return (both[0] - both[1]).abs().max().item()


def worker(rank, port):
    torch.set_num_threads(1)
    dist.init_process_group(
        "gloo",
        init_method=f"tcp://127.0.0.1:{port}",
        rank=rank,
        world_size=2,
        timeout=timedelta(seconds=60),
    )
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
    dist.destroy_process_group()


def launch():
    # Rank 0 listens on a free port of the loopback interface.
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = str(sock.getsockname()[1])
    workers = [
        subprocess.Popen(
            [sys.executable, __file__, str(rank), port],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for rank in range(2)
    ]
    try:
        results = [w.communicate(timeout=120) for w in workers]
    finally:
        for w in workers:
            w.kill()
    for w, (out, err) in zip(workers, results):
        if w.returncode:
            sys.exit(err)
        print(out, end="")


if sys.argv[1:]:
    worker(int(sys.argv[1]), sys.argv[2])
else:
    launch()
