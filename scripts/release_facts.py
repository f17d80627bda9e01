"""What differs between torch releases, as this Python's torch shows it: the facts the reference
page's "What changed between releases" table is made of (overrides/hooks/build_facts.py).

    .venv-torch2.15.0/bin/python scripts/release_facts.py          # print them
    .venv-torch2.15.0/bin/python scripts/release_facts.py --write  # to docs/releases/

`make test` writes them after a fully passing run (scripts/record_tested_version.py), with the
torch it lists as tested. Every value comes from running this torch, none is typed in.
"""

import argparse
import json
import warnings
from pathlib import Path

import torch
from torch.utils.checkpoint import checkpoint

ROOT = Path(__file__).resolve().parents[1]
FACTS_DIR = ROOT / "docs" / "releases"


def version() -> str:
    return torch.__version__.split("+")[0]


def backward_twice_message() -> str:
    x = torch.ones(2, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    try:
        y.backward()
    except RuntimeError as e:
        return str(e)
    raise AssertionError("a second backward through freed tensors did not raise")


def checkpoint_warning() -> str:
    x = torch.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        checkpoint(torch.tanh, x)  # use_reentrant not passed
    return " ".join(str(w.message) for w in caught if "use_reentrant" in str(w.message))


def facts() -> dict:
    return {
        "torch": version(),
        "message": backward_twice_message(),
        "checkpoint_warning": checkpoint_warning(),
        # What a diagnosis can use to learn where each graph node was made: this hook where it
        # exists, anomaly mode (which records a stack for every node) where it does not.
        "node_creation_hook": hasattr(torch.autograd.graph, "node_creation_hook"),
    }


def write(directory: Path = FACTS_DIR) -> Path:
    """Write this torch's facts to `directory`/torch-<version>.json; return the path."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"torch-{version()}.json"
    path.write_text(json.dumps(facts(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"into {FACTS_DIR.relative_to(ROOT)}/")
    args = parser.parse_args()
    if args.write:
        print(write().relative_to(ROOT))
    else:
        print(json.dumps(facts(), indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
