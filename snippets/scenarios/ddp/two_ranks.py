"""two_ranks.py: run_on_two_ranks(train) runs train(rank) in two
processes joined in one gloo process group on the loopback interface,
then prints what they printed, rank 0 first.

Save it next to a script that ends with run_on_two_ranks(train). The
ranks are forks of the script's process, so they start without
importing torch again; where the system has no fork (Windows), the
script starts itself twice more instead. CPU only. A rank whose group
broke (a collective timed out) can end it with
dist.destroy_process_group(); the launcher then leaves that rank's
group alone.
"""

import contextlib
import io
import multiprocessing
import os
import socket
import subprocess
import sys
import time
import traceback
from datetime import timedelta

import torch
import torch.distributed as dist

SECONDS = 120  # a rank still running then has hung


def gap_between_ranks(params):
    """The largest difference between the ranks' copies of params."""
    flat = torch.cat([p.detach().flatten() for p in params])
    both = [torch.empty_like(flat) for _ in range(2)]
    dist.all_gather(both, flat)
    return (both[0] - both[1]).abs().max().item()


def _be_rank(train, rank, port):
    # A thread pool the parent had set up does not survive a fork;
    # one thread a rank needs none.
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


def _forked_rank(train, rank, port, send):
    out, err, code = io.StringIO(), io.StringIO(), 0
    printed = contextlib.redirect_stdout(out)
    try:
        with printed, contextlib.redirect_stderr(err):
            _be_rank(train, rank, port)
    except BaseException:
        traceback.print_exc(file=err)
        code = 1
    send.send((code, out.getvalue(), err.getvalue()))
    # Leave now: at exit, gloo's threads can still end the process
    # ("terminate called without an active exception").
    os._exit(code)


def _fork_ranks(train, port):
    fork = multiprocessing.get_context("fork")
    pipes = [fork.Pipe(duplex=False) for _ in range(2)]
    ranks = [
        fork.Process(
            target=_forked_rank, args=(train, rank, port, send)
        )
        for rank, (_, send) in enumerate(pipes)
    ]
    for r in ranks:
        r.start()
    deadline = time.monotonic() + SECONDS
    results = []
    for receive, _ in pipes:
        if receive.poll(max(0, deadline - time.monotonic())):
            results.append(receive.recv())
        else:
            results.append((1, "", "a rank hung"))
    for r in ranks:
        r.kill()
        r.join()
    return results


def _start_ranks(port):
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
        results = [r.communicate(timeout=SECONDS) for r in ranks]
    finally:
        for r in ranks:
            r.kill()
    return [(r.returncode, *got) for r, got in zip(ranks, results)]


def run_on_two_ranks(train):
    if sys.argv[1:]:  # started as a rank where there is no fork
        _be_rank(train, int(sys.argv[1]), sys.argv[2])
        sys.stdout.flush()
        # Leave now: at exit, gloo's threads can still end the process.
        os._exit(0)
    # Rank 0 listens on a free port of the loopback interface.
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = str(sock.getsockname()[1])
    if hasattr(os, "fork"):
        results = _fork_ranks(train, port)
    else:
        results = _start_ranks(port)
    for code, out, err in results:
        if code:
            sys.exit(err)
        print(out, end="")


def _hello(rank):
    print(f"rank {rank} of {dist.get_world_size()}: process group up")


if __name__ == "__main__":
    run_on_two_ranks(_hello)
