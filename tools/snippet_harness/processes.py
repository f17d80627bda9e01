"""Which scripts start processes: `--no-processes` leaves them out of the inner loop."""

from __future__ import annotations

import ast
from pathlib import Path

# Importing one of these is starting processes: a pool, torch.multiprocessing's spawn, or
# torch.distributed's launchers.
PROCESS_MODULES = (
    "multiprocessing",
    "concurrent.futures.process",
    "torch.multiprocessing",
    "torch.distributed.run",
    "torch.distributed.launcher",
    "torch.distributed.elastic",
)


def starts_processes(path: Path) -> bool:
    """Whether the script, or a module of its own folder it imports (as the DDP scripts import
    two_ranks.py), imports a process module, or both a process group (torch.distributed) and
    subprocess: the ranks of a group it launches. subprocess alone is not enough: a script may
    use it only when asked to (measure_costs.py does, with --write)."""
    names = _imports(path, frozenset())

    def imported(module: str) -> bool:
        return any(name == module or name.startswith(module + ".") for name in names)

    return any(map(imported, PROCESS_MODULES)) or (
        imported("torch.distributed") and imported("subprocess")
    )


def _imports(path: Path, seen: frozenset) -> set[str]:
    try:
        tree = ast.parse(path.read_bytes(), str(path))
    except SyntaxError:  # its run says so
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
    for name in list(names):
        local = path.parent / (name.split(".")[0] + ".py")
        if local.is_file() and local not in seen | {path}:
            names |= _imports(local, seen | {path})
    return names
