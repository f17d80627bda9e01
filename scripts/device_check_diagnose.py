"""The diagnose command on a CUDA machine: its verdicts there, and what watching costs.

Run on a machine with a GPU and its own torch (the device checks in the closing notes say
which): every script that docs/diagnose/expected.yml lists runs under the command twice, on the
CPU and with `torch.set_default_device("cuda")` set before it, and the two `fix:` lines are
compared; then a transformer training step runs plainly and under `watch()`. Scripts that import
a package this machine lacks are counted apart. Prints a report; writes nothing in the tree.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# sitekit imports only the standard library: no venv of the project is needed on the device.
sys.path.insert(0, str(ROOT / "tools"))
import sitekit  # noqa: E402

# The file readers download, assembled from its parts.
COMMAND = sitekit.write_command(Path(tempfile.mkdtemp()))
RUN = """
import runpy, sys, torch
if sys.argv[1] == "cuda":
    torch.set_default_device("cuda")
sys.argv = [{command!r}, sys.argv[2]]
runpy.run_path({command!r}, run_name="__main__")
"""
FIX = re.compile(r"^fix: (.+)$", re.M)


def verdict(device: str, script: Path) -> str:
    driver = RUN.format(command=str(COMMAND))
    run = subprocess.run(
        [sys.executable, "-c", driver, device, script.name],
        cwd=script.parent,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if "ModuleNotFoundError" in run.stderr:
        return "missing package"
    found = FIX.findall(run.stdout)
    return found[-1] if found else "no verdict: " + run.stderr.strip().split("\n")[-1][:120]


def verdicts() -> dict:
    # Its keys, without a YAML parser (the machine may have none).
    text = (ROOT / "docs" / "diagnose" / "expected.yml").read_text()
    scripts = sorted(re.findall(r"^(snippets/\S+\.py):$", text, re.M))
    jobs = [(d, ROOT / s) for s in scripts for d in ("cpu", "cuda")]
    with ThreadPoolExecutor(os.cpu_count() // 2 or 1) as pool:
        found = list(pool.map(lambda job: verdict(*job), jobs))
    table = {}
    for (device, script), fix in zip(jobs, found, strict=True):
        table.setdefault(str(script.relative_to(ROOT)), {})[device] = fix
    return table


def overhead() -> list:
    import runpy

    import torch
    from torch import nn

    watch = runpy.run_path(str(COMMAND))["watch"]
    rows = []
    for layers, width, seq, batch in ((6, 512, 256, 32), (2, 256, 64, 8)):
        torch.manual_seed(0)
        layer = nn.TransformerEncoderLayer(width, 8, 4 * width, batch_first=True)
        model = nn.TransformerEncoder(layer, layers).cuda()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
        x = torch.randn(batch, seq, width, device="cuda")

        def step(model=model, opt=opt, x=x):
            opt.zero_grad()
            model(x).pow(2).mean().backward()
            opt.step()

        def timed(context, steps=15, step=step):
            with context():
                for _ in range(3):
                    step()
                torch.cuda.synchronize()
                start = time.perf_counter()
                for _ in range(steps):
                    step()
                torch.cuda.synchronize()
            return (time.perf_counter() - start) / steps * 1000

        import contextlib

        plain = min(timed(contextlib.nullcontext), timed(contextlib.nullcontext))
        watched = timed(watch)
        rows.append(
            {
                "model": f"TransformerEncoder {layers} layers x {width}, seq {seq}, batch {batch}",
                "plain_ms": round(plain, 1),
                "watched_ms": round(watched, 1),
                "ratio": round(watched / plain, 2),
            }
        )
    return rows


def main():
    import torch

    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
    table = verdicts()
    ran = {s: v for s, v in table.items() if "missing package" not in v.values()}
    same = [s for s, v in ran.items() if v["cpu"] == v["cuda"]]
    print(f"{len(same)} of {len(ran)} scripts: the same fix: line on CUDA and on the CPU")
    print(f"{len(table) - len(ran)} scripts need a package this machine lacks")
    for script, v in ran.items():
        if v["cpu"] != v["cuda"]:
            print(f"  differs: {script}\n    cpu:  {v['cpu']}\n    cuda: {v['cuda']}")
    rows = overhead()
    for row in rows:
        print(json.dumps(row))
    out = os.environ.get("OUT")
    if out:
        Path(out, "device_check.json").write_text(json.dumps({"verdicts": table, "overhead": rows}))


if __name__ == "__main__":
    main()
