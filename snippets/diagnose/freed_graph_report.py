"""report_freed(tensor): which nodes behind a tensor were already freed.

Copy this file next to your script and call report_freed(loss) just
before the backward that fails. Turn on
torch.autograd.set_detect_anomaly(True) before the forward pass to also
see the line of your code that created each node. Plain PyTorch.
"""

import os
import re
from collections import Counter

import torch

_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_FRAME = re.compile(r'File "(.+)", line (\d+), in .+(?:\n *(.*))?')
_GONE = ("freed", "ran")
_HEADINGS = {
    "unusable": "unusable for another reason (not this error):",
    "freed": "freed (a backward through them fails):",
    "ran": "already ran (a custom Function: a second pass fails "
    "only if it reads saved tensors):",
}


def _state(node):
    """One of: saved, none (saves no tensor), freed, ran, unusable."""
    if isinstance(node, torch.autograd.function.BackwardCFunction):
        # A custom Function (or a compiled region). Once its backward
        # ran, ctx.saved_tensors raises, even if nothing was saved.
        try:
            return "saved" if node.saved_tensors else "none"
        except RuntimeError as e:
            return "ran" if "freed" in str(e) else "unusable"
    state = "none"
    for name in dir(node):
        if not name.startswith("_saved_"):
            continue
        try:
            value = getattr(node, name)
        except RuntimeError as e:
            # "freed": the error this site is about; anything else
            # (a tensor changed in place, say) is another error.
            return "freed" if "freed" in str(e) else "unusable"
        values = value if isinstance(value, (list, tuple)) else [value]
        if any(isinstance(v, torch.Tensor) for v in values):
            state = "saved"
    return state


def _name(node):
    return type(node).__name__


def _made_at(node):
    """Your innermost line in the forward stack anomaly mode kept."""
    stack = node.metadata.get("traceback_")
    if not stack:
        return "line unknown (anomaly mode was off)"
    frames = [_FRAME.search(entry).groups() for entry in stack]
    mine = [f for f in frames if not f[0].startswith(_TORCH_DIR)]
    path, line, code = (mine or frames)[-1]
    code = (code or "").split("  #")[0].strip()  # drop a comment
    return f"{os.path.basename(path)}:{line}  {code}".rstrip()


def _print_grouped(nodes):
    """One line per source line, then the nodes it made, with counts."""
    groups = {}
    for node in nodes:
        groups.setdefault(_made_at(node), Counter())[_name(node)] += 1
    for where, names in groups.items():
        listed = [f"{k} x{n}" if n > 1 else k for k, n in names.items()]
        print(f"  {where}\n      {', '.join(listed)}")


def report_freed(tensor):
    """Print which nodes behind `tensor` had their saved tensors freed.

    Returns the nodes it found freed or already run (a list).
    """
    root = tensor.grad_fn
    if root is None:
        print("no grad_fn: this tensor has no graph to walk")
        return []
    states, order = {root: _state(root)}, [root]
    # via[n]: the nearest node on the way from the root to n that still
    # holds its saved tensors, so was not backpropagated yet. A node
    # that saves nothing could be old or new: it cannot tell.
    via, joins = {root: root}, []
    for node in order:  # breadth first; `order` grows as we go
        for child, _ in node.next_functions:
            if child is None or hasattr(child, "variable"):
                continue  # no grad, or a leaf's AccumulateGrad
            if child not in states:
                states[child] = _state(child)
                order.append(child)
                live = states[child] == "saved"
                via[child] = child if live else via[node]
            crosses = (
                states[child] in _GONE and states[node] not in _GONE
            )
            if crosses and via[node] not in joins:
                joins.append(via[node])

    freed = sum(states[n] == "freed" for n in order)
    print(
        f"{freed} of {len(order)} nodes behind {_name(root)} were freed"
    )
    for state, heading in _HEADINGS.items():
        nodes = [n for n in order if states[n] == state]
        if nodes:
            print(heading)
            _print_grouped(nodes)
    if states[root] in _GONE:
        print("reached from:")
        print("  the tensor itself: it was already backpropagated")
    elif joins:
        print("reached from:")
        _print_grouped(joins)
    empty = sum(states[n] == "none" for n in order)
    if empty:
        nodes = "node saves" if empty == 1 else "nodes save"
        print(f"{empty} {nodes} no tensor: never freed, not listed")
    return [n for n in order if states[n] in _GONE]


if __name__ == "__main__":
    torch.autograd.set_detect_anomaly(True)  # only to name the lines
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    loss = (y * y).sum()
    loss.backward()
    later = loss + y.sum()  # y's graph was freed by that backward
    report_freed(later)
