"""two_ranks.py: run_on_two_ranks(train) runs train(rank) in two
processes joined in one gloo process group on the loopback interface,
then prints what they printed, rank 0 first.

Save it next to a script that ends with run_on_two_ranks(train). On
Linux, from a process with one thread, the ranks are forks of the
script's process, so they start without importing torch again;
elsewhere (macOS, Windows), or with other threads running, the script
starts itself twice more instead. CPU only. A rank whose group
broke (a collective timed out) can end it with
dist.destroy_process_group(); the launcher then leaves that rank's
group alone.
"""

import contextlib
import multiprocessing
import os
import socket
import subprocess
import sys
import tempfile
import threading
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
    # What the rank prints, C++'s lines included, goes to two files
    # that the parent reads, as from a rank started as a process.
    with (
        tempfile.TemporaryFile("w+") as out,
        tempfile.TemporaryFile("w+") as err,
    ):
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        code, printed = 0, contextlib.redirect_stdout(out)
        try:
            with printed, contextlib.redirect_stderr(err):
                _be_rank(train, rank, port)
        except SystemExit as stop:  # as `python` ends on sys.exit()
            code = stop.code or 0
            if not isinstance(code, int):
                print(code, file=err)
                code = 1
        except BaseException:
            traceback.print_exc(file=err)
            code = 1
        for f in (out, err):
            f.flush()
            f.seek(0)
        send.send((code, out.read(), err.read()))
    # Leave now: at exit, gloo's threads can still end the process
    # ("terminate called without an active exception").
    os._exit(code)


def _result(rank, receive, deadline):
    try:
        if receive.poll(max(0, deadline - time.monotonic())):
            return receive.recv()
    except EOFError:  # it died before it could send anything
        rank.join()
        return 1, "", f"a rank died (exit code {rank.exitcode})"
    return 1, "", "a rank hung"


def _fork_ranks(train, port):
    fork = multiprocessing.get_context("fork")
    ranks, pipes = [], []
    try:
        for rank in range(2):
            receive, send = fork.Pipe(duplex=False)
            r = fork.Process(
                target=_forked_rank, args=(train, rank, port, send)
            )
            r.start()
            # Only the rank holds its end now: if it dies, the pipe
            # ends, and the other rank never had it.
            send.close()
            ranks.append(r)
            pipes.append(receive)
        deadline = time.monotonic() + SECONDS
        return [_result(*both, deadline) for both in zip(ranks, pipes)]
    finally:
        for r in ranks:
            r.kill()
            r.join()


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
    if sys.argv[1:]:  # started as a rank where it does not fork
        _be_rank(train, int(sys.argv[1]), sys.argv[2])
        sys.stdout.flush()
        # Leave now: at exit, gloo's threads can still end the process.
        os._exit(0)
    # Rank 0 listens on a free port of the loopback interface.
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = str(sock.getsockname()[1])
    # Python's docs call a fork unsafe on macOS (system libraries may
    # hold threads): there, and on Windows, the script runs again. So it
    # does beside other threads: a lock one holds as the fork happens
    # stays held in the rank, which can hang on it.
    alone = threading.active_count() == 1
    if sys.platform == "linux" and hasattr(os, "fork") and alone:
        results = _fork_ranks(train, port)
    else:
        results = _start_ranks(port)
    failed = [err for code, _, err in results if code]
    if failed:  # each failed rank's error, rank 0's first
        sys.exit("\n".join(failed))
    for _, out, _ in results:
        print(out, end="")


def _hello(rank):
    print(f"rank {rank} of {dist.get_world_size()}: process group up")


if __name__ == "__main__":
    run_on_two_ranks(_hello)
