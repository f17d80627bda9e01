"""A page's printed result must not depend on the CPU that runs it.

The Output fences were blessed on one machine and are checked on every reader's and on CI's.
torch picks its CPU kernels (and MKL its code path) by what the processor offers, and they
round differently: moving from an AVX2 machine to an AVX-512 one changed three printed values
in their last digit, and an LBFGS line search ended one closure call sooner. So every script is
also run, and checked against its page, with the kernels of two other machines: AVX2, and no
vector instructions at all. A script whose result turns on the last digits prints fewer.
"""

import os
import subprocess
import sys

import pytest
from support import ROOT

KERNELS = {
    "avx2": {"ATEN_CPU_CAPABILITY": "avx2", "MKL_ENABLE_INSTRUCTIONS": "AVX2"},
    "no-vector": {"ATEN_CPU_CAPABILITY": "default", "MKL_ENABLE_INSTRUCTIONS": "SSE4_2"},
}


@pytest.mark.parametrize("kernels", KERNELS.values(), ids=KERNELS.keys())
def test_every_page_prints_the_same_with_another_cpus_kernels(kernels):
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "docs",
            "snippets",
            "--no-processes",
            "-q",
            "-p",
            "no:cacheprovider",
        ],
        cwd=ROOT,
        env={**os.environ, **kernels},
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
