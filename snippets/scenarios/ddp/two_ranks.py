"""two_ranks.py: run_on_two_ranks(train) runs train(rank) in two
processes joined in one gloo process group on the loopback interface,
then prints what they printed, rank 0 first.

Save it next to a script that ends with run_on_two_ranks(train): the
script starts itself twice more as the two ranks. CPU only; two Python
processes start, so it takes a few seconds. A rank whose group broke
(a collective timed out) can end it with dist.destroy_process_group();
the launcher then leaves that rank's group alone.
"""

import os
import socket
import subprocess
import sys
from datetime import timedelta

import torch
import torch.distributed as dist


def gap_between_ranks(params):
    """The largest difference between the ranks' copies of params."""
    flat = torch.cat([p.detach().flatten() for p in params])
    both = [torch.empty_like(flat) for _ in range(2)]
    dist.all_gather(both, flat)
    return (both[0] - both[1]).abs().max().item()


def run_on_two_ranks(train):
    if sys.argv[1:]:
        rank, port = int(sys.argv[1]), sys.argv[2]
        torch.set_num_threads(1)
        dist.init_process_group(
            "gloo",
            init_method=f"tcp://127.0.0.1:{port}",
            rank=rank,
            world_size=2,
            timeout=timedelta(seconds=60),
        )
        train(rank)
        if dist.is_initialized():
            # No rank tears the group down while the other uses it.
            dist.barrier()
            dist.destroy_process_group()
        # Leave now: at exit, gloo's threads can still end the process
        # ("terminate called without an active exception").
        sys.stdout.flush()
        os._exit(0)
    # Rank 0 listens on a free port of the loopback interface.
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = str(sock.getsockname()[1])
    ranks = [
        subprocess.Popen(
            [sys.executable, sys.argv[0], str(rank), port],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for rank in range(2)
    ]
    try:
        results = [r.communicate(timeout=120) for r in ranks]
    finally:
        for r in ranks:
            r.kill()
    for r, (out, err) in zip(ranks, results):
        if r.returncode:
            sys.exit(err)
        print(out, end="")


def _hello(rank):
    print(f"rank {rank} of {dist.get_world_size()}: process group up")


if __name__ == "__main__":
    run_on_two_ranks(_hello)
