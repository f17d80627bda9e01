"""A page's printed result must not depend on the CPU that runs it.

The Output fences were blessed on one machine and are checked on every reader's and on CI's.
torch picks its CPU kernels (and MKL and oneDNN theirs) by what the processor offers, and they
round differently: moving from an AVX2 machine to an AVX-512 one changed three printed values
in their last digit, and an LBFGS line search ended one closure call sooner. So every script
but the 14 that start processes (DDP; they passed both settings when this test was written) is
also run and checked against its page with the kernels of two older
x86 machines: AVX2, and SSE4 only. A script whose result turns on the last digits prints fewer.
"""

import os
import platform
import subprocess
import sys

import pytest
from support import ROOT

KERNELS = {
    "avx2": {
        "ATEN_CPU_CAPABILITY": "avx2",
        "MKL_ENABLE_INSTRUCTIONS": "AVX2",
        "ONEDNN_MAX_CPU_ISA": "AVX2",
    },
    "sse4": {
        "ATEN_CPU_CAPABILITY": "default",
        "MKL_ENABLE_INSTRUCTIONS": "SSE4_2",
        "ONEDNN_MAX_CPU_ISA": "SSE41",
    },
}


@pytest.mark.parametrize("kernels", KERNELS.values(), ids=KERNELS.keys())
def test_every_page_prints_the_same_with_another_cpus_kernels(kernels):
    if platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip(f"x86 kernels cannot be chosen on {platform.machine()}")
    env = {**os.environ, **kernels}
    # torch ignores a setting it cannot honour, with only a warning: then nothing would differ.
    chosen = subprocess.run(
        [sys.executable, "-c", "import torch; print(torch.backends.cpu.get_cpu_capability())"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert chosen.lower() == kernels["ATEN_CPU_CAPABILITY"], f"torch chose {chosen}"
    command = [sys.executable, "-m", "pytest", "docs", "snippets", "--no-processes", "-q"]
    command += ["-p", "no:cacheprovider"]
    try:  # about 2 minutes on 2 cores: a run that hangs fails here, not at CI's limit
        run = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900
        )
    except subprocess.TimeoutExpired as hung:
        out = hung.stdout or ""
        out = out.decode(errors="replace") if isinstance(out, bytes) else out
        pytest.fail(f"the pages' scripts hung with {kernels} after 900 s:\n{out[-6000:]}")
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]


def test_the_ranks_start_where_there_is_no_fork():
    """The DDP and FSDP scripts' launcher forks its ranks on Linux; on macOS and Windows it
    starts the script twice more instead. Here that path runs on a Python without os.fork."""
    launcher = ROOT / "snippets/scenarios/ddp/two_ranks.py"
    no_fork = (
        "import os, runpy, sys; del os.fork; sys.argv = sys.argv[1:]; "
        "runpy.run_path(sys.argv[0], run_name='__main__')"
    )
    run = subprocess.run(
        [sys.executable, "-c", no_fork, str(launcher)], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout == "rank 0 of 2: process group up\nrank 1 of 2: process group up\n"


def _launch(body: str) -> subprocess.CompletedProcess:
    """A script ending with run_on_two_ranks(train), `body` defining train; at most a minute."""
    script = (
        f"import os, sys\nsys.path.insert(0, {str(ROOT / 'snippets/scenarios/ddp')!r})\n"
        "import torch.distributed as dist\nfrom two_ranks import run_on_two_ranks\n"
        f"{body}\nrun_on_two_ranks(train)\n"
    )
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )


def test_a_rank_that_dies_is_reported_at_once():
    """A rank killed by a signal sends nothing: the launcher says so when its pipe ends, not
    after its 120 s deadline as "a rank hung", and shows the other rank's error after it."""
    run = _launch("def train(rank):\n    if rank == 0:\n        os.abort()\n    dist.barrier()")
    assert run.returncode == 1, run.stderr[-3000:]
    assert run.stderr.startswith("a rank died (exit code -6)\n"), run.stderr[-3000:]


def test_a_rank_prints_nothing_but_what_the_launcher_shows():
    """What a rank writes below Python (gloo's log of a timed-out barrier) stays in the rank's
    files: a run that succeeds prints rank 0's lines, then rank 1's, and nothing on stderr."""
    script = ROOT / "snippets/scenarios/ddp/one_rank_skips_a_batch.py"
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stderr == ""
    assert run.stdout.startswith("rank 0, batch 0:"), run.stdout
