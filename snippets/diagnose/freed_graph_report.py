"""freed_graph_report.py: when "Trying to backward through the graph a
second time" is raised, name the value that reuses a freed graph, the
backward that freed it, and the fix that keeps your gradients.

    python freed_graph_report.py your_script.py [its arguments]

runs your script unchanged, as `python your_script.py` would. In a
notebook cell or a script, `with watch():` around the code does the
same. When the error is raised, the report is printed and its last
lines (the fix and the page that explains it) are added to the error,
which is raised as before. `report_freed(loss)`, called before a
backward, prints the same report without waiting for the error.

Plain PyTorch, one file. It records where each graph node was made
(anomaly mode before torch 2.14, torch.autograd.graph.node_creation_hook
from 2.14 on), which nodes each backward ran, and the parameters'
versions; the report's rules are explained at the `see:` address.
"""

import contextlib
import linecache
import os
import re
import runpy
import sys
import sysconfig
import warnings
import weakref
from collections import deque

import torch
from torch.optim.optimizer import register_optimizer_step_post_hook

SITE = "https://backward-twice.github.io/"
MESSAGE = "Trying to backward through the graph a second time"
_KEY = (
    "freed_graph_report"  # where it keeps its records in node.metadata
)
# Frames in these are library code; the lines to show are yours.
_LIBRARY = tuple(
    {os.path.dirname(torch.__file__) + os.sep}
    | {
        sysconfig.get_paths()[k] + os.sep
        for k in ("stdlib", "platstdlib", "purelib", "platlib")
    }
)
_PACKAGES = (
    f"{os.sep}site-packages{os.sep}",
    f"{os.sep}dist-packages{os.sep}",
)
# The report when the error comes from reading a saved tensor.
OUTSIDE = [
    "freed_graph_report: raised outside backward() and autograd.grad()",
    "a saved tensor read after the backward that freed it "
    "(grad_fn._saved_*, ctx.saved_tensors): read it before that backward",
    f"see: {SITE}scenarios/saved-tensors-after-backward/"
    "#fix-read-before-backward",
]
# The question that decides between two fixes, when the facts do not.
Q_AGAIN = "do you want another update from these inputs?"
Q_ONCE = "or should that loss be backpropagated once only?"
Q_PENALTY = "is the gradient from that call a term of this loss?"
Q_BOTH = "or do you want both gradients, from one pass?"
Q_TARGET = "is it a target, a constant for this loss, or a leftover?"
Q_CACHE = "or should this loss train through it (a cached value)?"
# What each verdict asks you to do, by (family, where it applies).
_APPLY = {
    ("detach", "value"): "detach it where it is made or kept",
    (
        "detach",
        "carried",
    ): "detach it at each step: an earlier step made it",
    (
        "detach",
        "earlier",
    ): "detach it for the backward at {line}: that one "
    "trained nothing through it",
    (
        "recompute",
        "value",
    ): "make it again, from the current parameters",
    ("recompute", "loss"): "a fresh forward for each backward",
    (
        "one-backward",
        "earlier",
    ): "one backward for this loss and the one at {line}",
    (
        "create-graph",
        "earlier",
    ): "create_graph=True in the call at {line}",
    (
        "retain-graph",
        "earlier",
    ): "retain_graph=True in the call at {line}",
}
_FRAME = re.compile(r'File "(.+)", line (\d+), in (.+)')


def _is_library(path):
    return (
        path.startswith(_LIBRARY)
        or any(p in path for p in _PACKAGES)
        or path.startswith("<frozen")
        or os.path.abspath(path) == os.path.abspath(__file__)
    )


# --- where nodes were made ------------------------------------------------


def _stack_here():
    """(file, line, function) of each frame calling this, outermost first."""
    frame, frames = sys._getframe(1), []
    while frame is not None:
        code = frame.f_code
        frames.append((code.co_filename, frame.f_lineno, code.co_name))
        frame = frame.f_back
    return frames[::-1]


def _on_node_created(node):
    node.metadata[_KEY + ".made"] = _stack_here()[:-1]


def _made(node):
    """(file, line, function) frames that made the node, outermost first;
    empty when nothing recorded it."""
    meta = node.metadata
    if _KEY + ".made" in meta:
        return meta[_KEY + ".made"]
    stack = meta.get("traceback_") or ()  # anomaly mode's record
    return [
        (m[1], int(m[2]), m[3]) for m in map(_FRAME.search, stack) if m
    ]


def _yours(frames):
    return [f for f in frames if not _is_library(f[0])]


def _where(frames, now):
    """The line of your code that made something: the outermost of your
    frames that the current call does not share, then your innermost."""
    mine, shared = _yours(frames), _yours(now)
    if not mine:
        return None, None
    i = 0
    while i < min(len(mine), len(shared)) - 1 and mine[i] == shared[i]:
        i += 1
    return mine[i], (mine[-1] if mine[-1] != mine[i] else None)


def _line(frame):
    path, line, _ = frame
    code = linecache.getline(path, line).strip().split("  #")[0]
    return f"{os.path.basename(path)}:{line}  {code}".rstrip()


# --- what a backward frees --------------------------------------------------


def _name(node):
    return type(node).__name__


def _hooked(raw):
    # Saved-tensor hooks (checkpoint) would run on unpacking: do not.
    raws = raw if isinstance(raw, (list, tuple)) else [raw]
    return any(getattr(r, "unpack_hook", None) for r in raws)


def _state(node):
    """saved, none (saves no tensor), freed, or other (another error)."""
    if isinstance(node, torch.autograd.function.BackwardCFunction):
        try:
            if _hooked(node._raw_saved_tensors) or node.saved_tensors:
                return "saved"
            return "none"
        except RuntimeError as e:
            return "freed" if "freed" in str(e) else "other"
    if _name(node) == "CopySlices":
        # Keeps the node of the in-place op, not tensors: a gradient of
        # the wrong shape stops at the shape check unless that node is
        # freed (CopySlices::apply_impl, functions/tensor.cpp).
        shape = node._input_metadata[0].shape
        try:
            node(torch.empty(0, *shape, device="meta"))
        except RuntimeError as e:
            return "freed" if "freed" in str(e) else "saved"
        return "saved"
    state = "none"
    for attr in dir(node):
        if not attr.startswith("_saved_"):
            continue
        try:
            if _hooked(getattr(node, "_raw" + attr, None)):
                state = "saved"
                continue
            value = getattr(node, attr)
        except RuntimeError as e:
            return "freed" if "freed" in str(e) else "other"
        values = value if isinstance(value, (list, tuple)) else [value]
        if any(isinstance(v, torch.Tensor) for v in values):
            state = "saved"
    return state


def _children(node):
    for child, _ in node.next_functions:
        if child is not None:
            yield child


def _is_leaf(node):
    return hasattr(node, "variable")


# --- the record of one run ---------------------------------------------------


class _Call:
    """A backward() or autograd.grad() call that completed."""

    def __init__(
        self, number, kind, site, keep, create_graph, inputs, outs
    ):
        self.number, self.kind, self.site = number, kind, site
        self.keep, self.create_graph = keep, create_graph
        self.inputs = inputs  # descriptions of grad's inputs
        self.grad_outputs = outs
        self.versions = {}  # id(leaf) -> (weakref to it, its _version)


class _Record:
    def __init__(self):
        # _Call and (number, optimizer, site) steps, the latest ones.
        self.events = deque(maxlen=512)
        self.count = 0

    def next_number(self):
        self.count += 1
        return self.count

    def calls(self):
        return [e for e in self.events if isinstance(e, _Call)]

    def stamp(self, call, roots, inputs):
        """Mark every node the call ran (its roots down to the inputs)."""
        key = _KEY + ".ran"
        nodes = _ran_by(roots, inputs, call.kind == "backward()")
        for node in nodes:
            if _is_leaf(node):
                leaf = node.variable
                call.versions[id(leaf)] = (
                    weakref.ref(leaf),
                    leaf._version,
                )
                continue
            node.metadata.setdefault(key, []).append(call)
        for root in roots:
            root.metadata.setdefault(_KEY + ".root", []).append(call)
        self.events.append(call)


def _ran_by(roots, inputs, runs_input_node):
    """The nodes a backward from `roots` runs: all of them, or with
    `inputs`, those on a way to one (and a non-leaf input's own node
    for backward(inputs=), which runs it too)."""
    seen, order, stack = set(), [], list(roots)
    freed_before = _KEY + ".ran"
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        order.append(node)
        calls = (
            {}
            if _is_leaf(node)
            else node.metadata.get(freed_before, ())
        )
        if any(not c.keep for c in calls):
            continue  # a freeing call already ran below here
        stack.extend(_children(node))
    if inputs is None:
        return order
    targets = set(inputs)
    needed = set()
    for node in reversed(order):  # children come after their parents
        if node in targets or any(c in needed for c in _children(node)):
            needed.add(node)
    if not runs_input_node:
        needed -= {
            n
            for n in targets
            if not any(c in needed for c in _children(n))
        }
    return [n for n in order if n in needed]


_RECORD = _Record()
_WATCHING = []


def _input_nodes(inputs):
    if inputs is None:
        return None
    if isinstance(inputs, torch.Tensor):
        inputs = [inputs]
    return [
        torch.autograd.graph.get_gradient_edge(t).node for t in inputs
    ]


def _roots(tensors):
    if isinstance(tensors, torch.Tensor):
        tensors = [tensors]
    return [t.grad_fn for t in tensors if t.grad_fn is not None]


def _describe(tensors):
    if tensors is None:
        return None
    if isinstance(tensors, torch.Tensor):
        tensors = [tensors]
    return [(id(t), isinstance(t, torch.nn.Parameter)) for t in tensors]


def _fingerprint(grads):
    if grads is None:
        return None
    if isinstance(grads, torch.Tensor):
        grads = [grads]
    return [None if g is None else g.detach().clone() for g in grads]


_ARGS = {
    "backward()": ("grad_tensors", "retain_graph", "create_graph"),
    "autograd.grad()": (
        "inputs",
        "grad_outputs",
        "retain_graph",
        "create_graph",
    ),
}


def _wrap(real, kind):
    def call(tensors, *args, **kwargs):
        given = dict(zip(_ARGS[kind], args), **kwargs)
        outs = given.get("grad_tensors", given.get("grad_outputs"))
        create = bool(given.get("create_graph"))
        keep = given.get("retain_graph")
        keep = create if keep is None else bool(keep)
        roots, inputs = _roots(tensors), given.get("inputs")
        site = _stack_here()[:-1]
        ours = False
        try:
            return real(tensors, *args, **kwargs)
        except RuntimeError as error:
            ours = MESSAGE in str(error)
            if ours and not hasattr(error, "_reported"):
                error._reported = True
                _report(error, roots, site, kind, outs)
            inputs = None  # it failed: any node may have run
            raise
        finally:
            if not ours:
                number = _RECORD.next_number()
                made = _Call(
                    number,
                    kind,
                    site,
                    keep,
                    create,
                    _describe(inputs),
                    _fingerprint(outs),
                )
                _RECORD.stamp(made, roots, _input_nodes(inputs))

    call.__wrapped__ = real
    return call


def _report(error, roots, site, kind, outs):
    """Print the report and add its verdict to the error; a failure of
    this file's own must never hide your error."""
    try:
        report = Report(roots, site, kind, outs, failed=True)
        print("\n".join(report.lines()))
        error.add_note("\n".join(report.verdict()))
    except Exception as failure:  # noqa: BLE001
        error.add_note(f"freed_graph_report.py failed: {failure!r}")


def _after_step(optimizer, args, kwargs):
    _STEPPED.add(optimizer)
    site = _stack_here()[:-1]
    _RECORD.events.append(
        (_RECORD.next_number(), type(optimizer).__name__, site)
    )


@contextlib.contextmanager
def watch():
    """Record what a report needs while the block runs; report this error
    if it is raised in it. Nested or repeated use is fine."""
    if _WATCHING:
        yield
        return
    autograd = torch.autograd
    creation = getattr(torch.autograd.graph, "node_creation_hook", None)
    anomaly = (
        torch.is_anomaly_enabled(),
        torch.is_anomaly_check_nan_enabled(),
    )
    real = autograd.backward, autograd.grad
    _WATCHING.append(True)
    try:
        with contextlib.ExitStack() as stack:
            autograd.backward = _wrap(real[0], "backward()")
            autograd.grad = _wrap(real[1], "autograd.grad()")
            stack.callback(
                register_optimizer_step_post_hook(_after_step).remove
            )
            if creation is not None:
                stack.enter_context(creation(_on_node_created))
            elif not anomaly[0]:
                # Anomaly mode keeps each node's stack; its NaN check, a
                # cost of its own, is not needed here.
                autograd.set_detect_anomaly(True, check_nan=False)
                stack.callback(autograd.set_detect_anomaly, *anomaly)
                # Its warning shows one node's stack; the report says more.
                stack.enter_context(warnings.catch_warnings())
                warnings.filterwarnings("ignore", "Error detected in ")
            yield
    except RuntimeError as error:
        if MESSAGE in str(error) and not hasattr(error, "_reported"):
            error._reported = (
                True  # raised outside backward() and grad()
            )
            print("\n".join(OUTSIDE))
            error.add_note(OUTSIDE[-1])
        raise
    finally:
        autograd.backward, autograd.grad = real
        _WATCHING.pop()


# --- the report ---------------------------------------------------------------


class Report:
    """What the graph behind `roots` reuses, and the fix. `site`: the
    frames of the call about to backpropagate it."""

    def __init__(
        self, roots, site, kind="backward()", outs=None, failed=False
    ):
        # A call that failed has run, and freed, the nodes it reached
        # first: only the record tells those from the ones run earlier.
        self.site, self.kind, self.failed = site, kind, failed
        self.outs = _fingerprint(outs)
        self.roots = roots
        self.old, self.new, self.crossings = self._split(roots)
        self.leaves_new, self.leaves_old = self._leaves()
        self.freed_by = self._freed_by()
        self.through, self.only, self.changed, self.replaced = (
            {},
            {},
            [],
            [],
        )
        self.family, self.where = self._decide()

    # The facts.

    def _old(self, node, states):
        ran = [
            c
            for c in node.metadata.get(_KEY + ".ran", ())
            if not c.keep
        ]
        if self.failed:
            return bool(ran)
        if node not in states:
            states[node] = _state(node)
        if states[node] == "saved":
            return False  # whatever ran, it can run again
        return bool(ran) or states[node] == "freed"

    def _split(self, roots):
        """Old nodes (a backward already ran them), new ones, and the
        edges from a new node to an old one."""
        states, old, new, crossings = {}, set(), [], []
        for root in roots:
            if self._old(root, states):
                old.add(root)
        todo = [r for r in roots if r not in old]
        seen = set(todo) | old
        while todo:
            node = todo.pop(0)
            new.append(node)
            for child in _children(node):
                if _is_leaf(child):
                    continue
                if child not in seen and self._old(child, states):
                    old.add(child)
                if child in old:
                    crossings.append((node, child))
                elif child not in seen:
                    todo.append(child)
                seen.add(child)
        self.states = states
        return old, new, crossings

    def _leaves(self):
        def leaves(starts, stop):
            found, seen, todo = {}, set(starts), list(starts)
            while todo:
                node = todo.pop()
                for child in _children(node):
                    if _is_leaf(child):
                        if child.variable.requires_grad:
                            found[id(child.variable)] = child.variable
                    elif child not in seen and not stop(child):
                        seen.add(child)
                        todo.append(child)
            return found

        new = leaves(self.new, lambda n: n in self.old)
        start = [n for _, n in self.crossings] + [
            r for r in self.roots if r in self.old
        ]
        return new, leaves(start, lambda n: False)

    def _freed_by(self):
        firsts = [n for _, n in self.crossings] + [
            r for r in self.roots if r in self.old
        ]
        calls = [
            c
            for n in firsts
            for c in n.metadata.get(_KEY + ".ran", ())
            if not c.keep
        ]
        return min(calls, key=lambda c: c.number) if calls else None

    def _since(self, call):
        return [
            e
            for e in _RECORD.events
            if not isinstance(e, _Call) and e[0] > call.number
        ]

    @staticmethod
    def _changed(call, leaves=None):
        """The leaves (of `leaves`, or all) updated in place since `call`."""
        changed = []
        for i, (ref, version) in call.versions.items():
            leaf = ref()
            if leaf is not None and leaf._version != version:
                if leaves is None or i in leaves:
                    changed.append(leaf)
        return changed

    # The verdict.

    def _decide(self):
        """(family, or [(question, family), ...]) and where it applies.
        The page at `see:` explains each rule."""
        if not self.old or not self.freed_by:
            return None, None
        by, firsts = self.freed_by, [n for _, n in self.crossings]
        # The optimizers that train something here; with none, a
        # program that updates by hand: count every leaf as trained.
        both = {**self.leaves_old, **self.leaves_new}
        opts = [o for o in _optimizers() if _owners(both, [o])]
        trained = _owned(opts) if opts else set(both)
        old = self.leaves_old
        self.through = {i: t for i, t in old.items() if i in trained}
        new = self.leaves_new
        self.only = {
            i: t for i, t in self.through.items() if i not in new
        }
        self.changed = self._changed(by, self.through) if by else []
        self.replaced = _replaced(self.only)
        stale = bool(self.changed or self.replaced)
        stepped = by and self._since(by) and not _running_step()
        mine = [r for r in self.roots if r in self.old]
        loss = mine or [n for n in firsts if _is_root_of(n, by)]
        if not mine and by and by.kind == "autograd.grad()":
            if not by.create_graph:
                return _penalty(by, trained)
        if loss and not mine and not self.only and self._carried():
            return "detach", "carried"  # a running total of losses
        if loss:  # a loss that was backpropagated already
            if stale and stepped:
                return [
                    (Q_AGAIN, "recompute"),
                    (Q_ONCE, "one-backward"),
                ], "loss"
            if stale:
                return "recompute", "loss"
            if not mine:
                return (
                    "retain-graph",
                    "earlier",
                )  # that loss feeds this one
            if by.grad_outputs and not _same(
                by.grad_outputs, self.outs
            ):
                return "retain-graph", "earlier"
            return "one-backward", "earlier"
        if not self.through:
            return (
                "detach",
                "value",
            )  # nothing you train is reached by it
        if self.only and stale:
            theirs = {i for i in new if i in trained}
            if not _owners(self.only, opts) & _owners(theirs, opts):
                if _owners(theirs, opts):
                    return "detach", "value"  # it trains another model
            return "recompute", "value"
        if self.only:
            if by and self._changed(by):
                # The earlier call's update came and left this value's
                # parameters alone: its pass through it was wasted.
                return "detach", "earlier"
            return "one-backward", "earlier"
        # This call reaches everything you train without the value too.
        if self._carried():
            return "detach", "carried"
        if not stale:
            return "one-backward", "earlier"
        return [(Q_TARGET, "detach"), (Q_CACHE, "recompute")], "value"

    def _carried(self):
        """True if the lines that made the value also made the node that
        takes it in now: a state fed back, from an earlier iteration."""
        return any(
            _chain(j) and _chain(j) == _chain(n)
            for j, n in self.crossings
        )

    # The text.

    def lines(self):
        """The report, as printed."""
        out = ["freed_graph_report: what this backward reuses"]
        if not self.old:
            return out + [self._nothing()]
        now, by = self.site, self.freed_by
        reused = [r for r in self.roots if r in self.old]
        if reused:
            node = reused[0]
            out.append(
                f"reused:   this call's own tensor ({_name(node)}), already backpropagated"
            )
            out += _at("made at", node, now)
        else:
            node = self.crossings[0][1]
            out.append(
                f"reused:   a value ({_name(node)}) that an earlier backward went through"
            )
            out += _at("made at", node, now)
            out += _at(
                "used at",
                next(j for j, n in self.crossings if n is node),
                now,
            )
            out.append(f"  held in  {_holder(node)}")
            more = {_chain(n) for _, n in self.crossings} - {
                _chain(node)
            }
            if more:
                out.append(
                    f"  and {len(more)} more value(s), made by other lines"
                )
        if by is None:
            out.append("freed by: a backward this run did not watch")
        else:
            later = sum(
                1 for c in _RECORD.calls() if c.number > by.number
            )
            mine = _yours(by.site)
            out.append(
                f"freed by: {_line(mine[-1]) if mine else 'library code'}"
            )
            ago = (
                f"{later + 1} calls before this one"
                if later
                else "the call before this one"
            )
            out.append(f"  {by.kind}, {ago}")
            out.append(f"since:    {self._steps_since(by)}")
        if self.family is None:
            pass
        elif self.only:
            names = _shorten(_names(self.only))
            out.append(
                f"only through it: {names} (detaching it leaves them no gradient)"
            )
        elif not self.through:
            out.append("through it: nothing an optimizer trains")
        return out + self.verdict()

    def _steps_since(self, by):
        steps = [e[1] for e in self._since(by)]
        said = []
        if steps:
            s = "s" if len(steps) > 1 else ""
            said.append(
                f"{len(steps)} optimizer step{s} ({', '.join(sorted(set(steps)))})"
            )
        running = _running_step()
        if running:
            said.append(f"inside {running}.step()")
        said = " and ".join(said) or "no optimizer step"
        if self.changed:
            n = len(self.changed)
            said += f"; {n} parameter{'s' if n > 1 else ''} it depends on changed"
        if self.replaced:
            n = len(self.replaced)
            said += f"; {n} tensor{'s' if n > 1 else ''} it was made from replaced"
        return said

    def _nothing(self):
        if self.old:
            return (
                "fix: none given, since no record says which backward freed "
                "it: run the script under freed_graph_report.py"
            )
        if self.failed:
            # Its nodes carry no record: freed before watching began.
            return (
                "the backward that freed this graph ran before watch() "
                "began: watch the whole run"
            )
        return "nothing behind it was run by an earlier backward"

    def verdict(self):
        """The last lines: the fix and the page that explains it."""
        family = self.family
        if family is None:
            return [self._nothing()]
        if isinstance(family, str):
            return [
                f"fix: {family}",
                f"  {self._apply()}",
                f"see: {SITE}fix/#{family}",
            ]
        names = " or ".join(f for _, f in family)
        out = [f"fix: {names} (the facts do not decide)"]
        out += [f"  {f}: {question}" for question, f in family]
        return out + [f"see: {SITE}fix/#{f}" for _, f in family]

    def _apply(self):
        earlier = _yours(self.freed_by.site) if self.freed_by else []
        line = (
            f"line {earlier[-1][1]}" if earlier else "the earlier call"
        )
        return _APPLY[self.family, self.where].format(line=line)


def _is_root_of(node, call):
    return call is not None and call in node.metadata.get(
        _KEY + ".root", ()
    )


def _penalty(by, trained):
    """The verdict when the earlier call was grad() without create_graph."""
    if not any(i in trained for i, _ in by.inputs or ()):
        return "create-graph", "earlier"  # a gradient of an input
    return [
        (Q_PENALTY, "create-graph"),
        (Q_BOTH, "one-backward"),
    ], "earlier"


def _replaced(only):
    """Tensors a value was made from that your program replaced: no
    variable of yours holds them, one holds a new leaf of their shape."""
    held = {
        id(v): tuple(v.shape)
        for _, v in _reachable(2)
        if isinstance(v, torch.Tensor) and v.is_leaf and v.requires_grad
    }
    shapes = set(held.values())
    return [
        t
        for i, t in only.items()
        if i not in held and tuple(t.shape) in shapes
    ]


def _at(label, node, now):
    made, via = _where(_made(node), now)
    if made is None:
        return [
            f"  {label}  line unknown: made before watching began"
        ]
    lines = [f"  {label}  {_line(made)}"]
    if via:
        lines.append(f"      via  {_line(via)}")
    return lines


def _chain(node):
    return tuple(f[:2] for f in _yours(_made(node)))


def _running_step():
    """The optimizer whose step() is running now, if one is."""
    frame = sys._getframe(1)
    while frame is not None:
        me = frame.f_locals.get("self")
        if frame.f_code.co_name == "step" and isinstance(
            me, torch.optim.Optimizer
        ):
            return type(me).__name__
        frame = frame.f_back
    return None


def _same(a, b):
    if len(a) != len(b):
        return False
    return all(
        (x is None and y is None)
        or (
            x is not None
            and y is not None
            and x.shape == y.shape
            and torch.equal(x, y)
        )
        for x, y in zip(a, b)
    )


def _shorten(names, most=4):
    shown = ", ".join(names[:most])
    return shown + (
        f" and {len(names) - most} more" if len(names) > most else ""
    )


# --- the program's objects ----------------------------------------------


def _reachable(depth=3, budget=20000):
    """(path, value) for your variables and what they hold, breadth
    first: attributes, buffers and submodules, list and dict entries.
    Paths are spelled as your code would (`model.cache`, `log[3]`)."""
    frame, todo = sys._getframe(1), []
    while frame is not None:
        code = frame.f_code
        if not _is_library(code.co_filename):
            local = code.co_name != "<module>"
            where = f" in {code.co_name}()" if local else ""
            todo += [
                (k, where, v, 0) for k, v in frame.f_locals.items()
            ]
            if local:
                todo += [
                    (k, "", v, 0) for k, v in frame.f_globals.items()
                ]
        frame = frame.f_back
    seen = set()
    for path, where, value, level in todo:
        if path.startswith("__") or len(seen) > budget:
            continue
        yield f"`{path}`{where}", value
        if (
            level == depth
            or id(value) in seen
            or isinstance(value, torch.Tensor)
        ):
            continue
        seen.add(id(value))
        todo += [
            (f"{path}{k}", where, v, level + 1)
            for k, v in _parts(value)
        ]


def _parts(value):
    """(accessor, item) for what a container or object holds."""
    try:
        if isinstance(value, dict):
            return [
                (f"[{k!r}]", v) for k, v in list(value.items())[:100]
            ]
        if isinstance(value, (list, tuple, deque)):
            return [
                (f"[{i}]", v) for i, v in enumerate(list(value)[:100])
            ]
        if isinstance(value, torch.nn.Module):
            parts = {**value._buffers, **value._modules}
            parts.update(
                (k, v)
                for k, v in vars(value).items()
                if not k.startswith("_")
            )
            return [(f".{k}", v) for k, v in parts.items()]
        if isinstance(value, (type, type(os))) or callable(value):
            return []
        return [(f".{k}", v) for k, v in vars(value).items()]
    except (TypeError, ReferenceError):  # no __dict__, or a dead proxy
        return []


_STEPPED = weakref.WeakSet()  # optimizers seen stepping


def _optimizers():
    found = {id(o): o for o in _STEPPED}
    for _, value in _reachable(depth=2):
        if isinstance(value, torch.optim.Optimizer):
            found.setdefault(id(value), value)
    return list(found.values())


def _owned(optimizers):
    return {
        id(p)
        for o in optimizers
        for g in o.param_groups
        for p in g["params"]
    }


def _owners(ids, optimizers):
    """The optimizers (by id) that update one of the tensors `ids`."""
    return {
        id(o)
        for o in optimizers
        for g in o.param_groups
        for p in g["params"]
        if id(p) in ids
    }


def _names(leaves):
    """Names of these leaves as your code spells them (`encoder.0.weight`)."""
    found = {}
    for path, value in _reachable(depth=1):
        if " in " in path:
            continue
        var = path.strip("`")
        if isinstance(value, torch.nn.Module):
            for name, p in value.named_parameters():
                found.setdefault(id(p), f"{var}.{name}")
        elif isinstance(value, torch.Tensor) and id(value) in leaves:
            found.setdefault(id(value), var)
    return sorted(
        found.get(i, f"a tensor of shape {tuple(t.shape)}")
        for i, t in leaves.items()
    )


def _holder(node):
    """Where your program keeps the tensor that `node` made."""
    found = [
        path
        for path, value in _reachable()
        if isinstance(value, torch.Tensor) and value.grad_fn is node
    ]
    return (
        " and ".join(found[:2])
        or "no variable of yours: only the graph"
    )


# --- entry points -----------------------------------------------------------


def report_freed(tensor):
    """Print the report for the graph behind `tensor`, before the backward
    that would fail; return the nodes a backward already ran there."""
    report = Report(_roots(tensor), _stack_here()[:-1])
    print("\n".join(report.lines()))
    return sorted(report.old, key=lambda n: n._sequence_nr())


def main(argv):
    """python freed_graph_report.py script.py [args]: run script.py as
    `python script.py [args]` would, watched."""
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python freed_graph_report.py script.py [args]")
        return
    script = argv[0]
    sys.argv = list(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    with watch():
        runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
