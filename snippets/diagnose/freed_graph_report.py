"""freed_graph_report.py: report_freed(tensor) lists the nodes behind a
tensor whose saved tensors a backward already freed.

Save this file as freed_graph_report.py next to your script, then call
report_freed(loss) just before the backward that fails. Turn on
torch.autograd.set_detect_anomaly(True) before the forward pass to also
see the line of your code that created each node, and which page of
the site to read: a guess from the shape of the graph. Plain PyTorch.
"""

import os
import re
import sysconfig
from collections import Counter

import torch

# Frames in these are library code; the line to show is yours.
_LIBRARY_DIRS = tuple(
    {os.path.dirname(torch.__file__) + os.sep}
    | {
        sysconfig.get_paths()[key] + os.sep
        for key in ("stdlib", "platstdlib", "purelib", "platlib")
    }
)
_PACKAGES = tuple(
    f"{os.sep}{name}{os.sep}"
    for name in ("site-packages", "dist-packages")
)
_FRAME = re.compile(r'File "(.+)", line (\d+), in (.+)(?:\n *(.*))?')
_GONE = ("freed", "ran")
# The pages _pointer() names, by their path on the site.
_TWICE = "/scenarios/backward-twice/#which-fix"
_INPLACE = "/not-this-error/#inplace-modification"
_CACHED = "/scenarios/hidden-cache/#parametrize-cached"
_DISTRIBUTION = "/scenarios/hidden-cache/#distribution"
_HIDDEN = "/scenarios/rnn-hidden-state/#fix-detach-hidden"
_TOTAL = "/scenarios/running-total/#fix-item"
_CARRIED = "/diagnose/#carried-grad-fn"
_LOGP = "/scenarios/reinforcement-learning/#fix-recompute-log-probs"
_FEATURES = "/scenarios/features-outside-loop/#fix-compute-in-loop"
_OUTPUT_ONCE = [
    f"{_FEATURES}  (made before the loop)",
    "/scenarios/two-losses/#fix-sum-losses  (two losses on it)",
    "/scenarios/gan/#fix-detach-fake  (a GAN's fake batch)",
]
_TENSOR_ONCE = [
    "/scenarios/parameter-derived-tensor/#fix-derive-in-forward"
    "  (made from parameters)",
    f"{_FEATURES}  (made before the loop)",
]
_PARAMETRIZE = os.path.join("nn", "utils", "parametrize.py")
_MODULE_CALL = os.path.join("nn", "modules", "module.py")
_HEADINGS = {
    "unusable": "unusable for another reason (not this error):",
    "freed": "freed (a backward through them fails):",
    "ran": "already ran (a custom Function: a second pass fails "
    "only if it reads saved tensors):",
}


def _hooked(raw):
    """True if saved-tensor hooks hold it: unpacking would call them,
    and under checkpoint(use_reentrant=False) re-run the forward. The
    backward that frees a saved tensor drops its hooks too."""
    raws = raw if isinstance(raw, (list, tuple)) else [raw]
    return any(getattr(r, "unpack_hook", None) for r in raws)


def _custom_state(node):
    # A custom Function (or a compiled region). Once its backward ran,
    # its saved tensors raise, even if it saved nothing.
    try:
        if _hooked(node._raw_saved_tensors):
            return "saved"
        return "saved" if node.saved_tensors else "none"
    except RuntimeError as e:
        return "ran" if "freed" in str(e) else "unusable"


def _copy_slices_state(node):
    # `a[0] = v` on a tensor with a graph: CopySlices saves no tensor of
    # its own, and backward frees the node it wraps. Called with a
    # gradient of the wrong shape, it raises this site's error if that
    # node is gone, and otherwise fails on the shape before computing
    # anything (CopySlices::apply_impl in functions/tensor.cpp).
    shape = node._input_metadata[0].shape
    try:
        node(torch.empty(0, *shape, device="meta"))
    except RuntimeError as e:
        return "freed" if "freed" in str(e) else "saved"
    return "saved"


def _state(node):
    """One of: saved, none (saves no tensor), freed, ran, unusable."""
    if isinstance(node, torch.autograd.function.BackwardCFunction):
        return _custom_state(node)
    if _name(node) == "CopySlices":
        return _copy_slices_state(node)
    state = "none"
    for name in dir(node):
        if not name.startswith("_saved_"):
            continue
        try:
            if _hooked(getattr(node, "_raw" + name, None)):
                state = "saved"  # held by hooks: do not unpack
                continue
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


def _is_library(path):
    return (
        path.startswith(_LIBRARY_DIRS)
        or any(p in path for p in _PACKAGES)
        or path.startswith("<frozen")
    )


def _made_at(node):
    """Your innermost line in the forward stack anomaly mode kept."""
    stack = node.metadata.get("traceback_")
    if not stack:
        return "line unknown (anomaly mode was off)"
    frames = [_FRAME.search(entry).groups() for entry in stack]
    mine = [f for f in frames if not _is_library(f[0])]
    path, line, _, code = (mine or frames)[-1]
    code = (code or "").split("  #")[0].strip()  # drop a comment
    return f"{os.path.basename(path)}:{line}  {code}".rstrip()


def _frames(node):
    """(file, line, function) of each frame of the forward stack that
    anomaly mode kept, outermost first; empty if it was off."""
    stack = node.metadata.get("traceback_") or ()
    return [_FRAME.search(entry).groups()[:3] for entry in stack]


def _yours(node):
    """Your frames that made the node: two nodes with the same ones
    were made by the same lines of your code."""
    return tuple(f[:2] for f in _frames(node) if not _is_library(f[0]))


def _made_in(node, part, functions=None):
    """True if the node was made inside `part` of PyTorch (a path such
    as "distributions"), in one of `functions` if given."""
    where = os.path.join(os.path.dirname(torch.__file__), part)
    return any(
        path.startswith(where) and (not functions or f in functions)
        for path, _, f in _frames(node)
    )


def _entries(root, states):
    """The freed nodes the new graph reaches first: each is the child of
    a node that no backward has run yet."""
    seen, todo, entries = {root}, [root], []
    for node in todo:
        for child, _ in node.next_functions:
            if child is None or hasattr(child, "variable"):
                continue
            if child not in seen:
                seen.add(child)
                gone = states[child] in _GONE
                (entries if gone else todo).append(child)
    return entries


def _pointer(root, states, joins):
    """(what the culprit looks like, [pages to read]): a guess from the
    shape of the graph. The page that shows this helper lists the rules
    and their limits (#helper-pointer)."""
    if states[root] in _GONE:
        return "this tensor was already backpropagated", [_TWICE]
    gone = [n for n, s in states.items() if s in _GONE]
    if not gone:
        if "unusable" in states.values():
            return "not this error: a saved tensor changed", [_INPLACE]
        return None, []
    if "saved" not in states.values():
        return "this tensor was already backpropagated?", [_TWICE]
    entries = _entries(root, states)
    if not any(_frames(n) for n in entries):
        return "unknown (anomaly mode was off in the forward)", []
    if any(_made_in(n, _PARAMETRIZE) for n in entries):
        return "a parametrized weight computed once", [_CACHED]
    # A distribution's own tensors are made in its __init__ or, on
    # first use, by a lazy_property (__get__); log_prob() and the other
    # methods make new tensors, which the caller keeps.
    held = ("__init__", "__get__")
    if any(_made_in(n, "distributions", held) for n in entries) or any(
        _made_in(n, "distributions") for n in joins
    ):
        return "a distribution built once", [_DISTRIBUTION]
    if any(_made_in(n, "distributions") for n in entries):
        return "log-probabilities kept from an earlier graph", [_LOGP]
    old = {_yours(n) for n in gone}
    if any(_yours(n) in old for n in joins):
        # The line that reaches the old graph also made it: it took
        # its own output from an earlier iteration back in.
        return "a state fed back (an RNN's hidden state?)", [_HIDDEN]
    live = {_yours(n) for n, s in states.items() if s == "saved"}
    if old & live:
        # The same lines made old nodes and new ones: a loop, and a
        # value from an earlier iteration joins this one's graph.
        if any(_name(n).startswith(("Add", "Sub")) for n in joins):
            return "a running total of losses", [_TOTAL]
        return "a value carried from an earlier iteration", [_CARRIED]
    if any(_made_in(n, _MODULE_CALL) for n in gone):
        return "a module output made once, used again", _OUTPUT_ONCE
    return "a tensor made once, outside any module call", _TENSOR_ONCE


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

    counts = Counter(states.values())
    summary = f"{counts['freed']} of {len(order)} nodes behind "
    summary += f"{_name(root)} were freed"
    if counts["ran"]:
        summary += f", {counts['ran']} already ran"
    if counts["unusable"]:
        summary += f", {counts['unusable']} unusable"
    print(summary)
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
        if states[root] == "none" and not counts["saved"]:
            # Nothing behind it still holds a tensor: a backward may
            # have run the root too, and a root that saves nothing
            # cannot show it.
            print(
                "  or the tensor itself was already backpropagated "
                f"({_name(root)} saves no tensor: no way to tell)"
            )
    none = counts["none"]
    if none:
        nodes = "node saves" if none == 1 else "nodes save"
        print(f"{none} {nodes} no tensor: never freed, not listed")
    looks_like, pages = _pointer(root, states, joins)
    if looks_like:
        print(f"looks like: {looks_like}")
    for page in pages:
        print(f"read: {page}")
    return [n for n in order if states[n] in _GONE]


if __name__ == "__main__":
    torch.autograd.set_detect_anomaly(True)  # only to name the lines
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.sum().backward()
    later = y.pow(2).sum()  # reuses y: its graph is freed
    report_freed(later)
