# Runs two DDP processes (gloo, CPU, loopback): takes a few seconds.
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


def gap_between_ranks(params):
    flat = torch.cat([p.detach().flatten() for p in params])
    both = [torch.empty_like(flat) for _ in range(2)]
    dist.all_gather(both, flat)
    return (both[0] - both[1]).abs().max().item()


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Linear(3, 4)
        self.head_a = nn.Linear(4, 1)
        self.head_b = nn.Linear(4, 1)

    def forward(self, x):
        h = torch.tanh(self.trunk(x))
        return self.head_a(h), self.head_b(h)


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
        model = DDP(TwoHeads(), **options)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        torch.manual_seed(1 + rank)  # each rank gets its own batch
        for step in range(3):
            x = torch.randn(8, 3)
            a, b = model(x)
            opt.zero_grad()
            # One backward per forward: DDP averages every gradient.
            (a.pow(2).mean() + b.pow(2).mean()).backward()
            opt.step()
        gap = gap_between_ranks(model.parameters())
        if rank == 0:
            print(f"{name}: 3 steps, replicas differ by {gap}")
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
