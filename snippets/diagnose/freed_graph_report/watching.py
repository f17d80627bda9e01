"""Watching: the records a report reads, kept while a program runs.

Where each graph node was made (anomaly mode before torch 2.14, held
on while it watches, and torch.autograd.graph's node_creation_hook from
2.14 on), which nodes each backward() and autograd.grad() call ran and
who made the call, the optimizer steps, and the leaves' versions and
values (a fingerprint: a write through .data moves no version). Nothing
here reads a report: `recording(on_freed)` calls back when the error is
raised.
"""

import contextlib
import linecache
import math
import os
import re
import sys
import sysconfig
import threading
import warnings
import weakref
from collections import deque

import torch
import torch.utils._pytree as pytree
from torch.autograd.function import once_differentiable
from torch.optim.optimizer import (
    register_optimizer_step_post_hook,
    register_optimizer_step_pre_hook,
)

MESSAGE = "Trying to backward through the graph a second time"
MADE, RAN, ROOT = "report.made", "report.ran", "report.root"
ROOT_NR = "report.root_nr"  # (call, output number) of a root
TERM_OF = "report.term_of"  # (call, output number): a term of its loss
# Frames in these files are library code; the lines to show are yours.
_LIBRARY = (os.path.dirname(torch.__file__) + os.sep,) + tuple(
    sysconfig.get_paths()[k] + os.sep
    for k in ("stdlib", "platstdlib", "purelib", "platlib")
)
_PACKAGES = (f"{os.sep}site-packages{os.sep}", f"{os.sep}dist-packages")
_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_FRAME = re.compile(r'File "(.+)", line (\d+), in (.+)')


def _is_library(path):
    known = _LIBRARY_FILES.get(path)
    if known is None:
        known = (
            path.startswith(_LIBRARY)
            or any(p in path for p in _PACKAGES)
            or path.startswith("<frozen")
            or _is_here(path)
        )
        if os.path.isabs(path) and os.path.isabs(__file__):
            _LIBRARY_FILES[path] = known  # the cwd cannot change it
    return known


_LIBRARY_FILES = {}  # file: _is_library's answer, asked at every call


def _is_here(path):
    """True for this file and for any copy of the command a program
    imports beside it: the file readers download, under its name, or
    the package of parts it is made from."""
    path = os.path.abspath(path)
    return (
        path == os.path.abspath(__file__)
        or os.path.basename(path) == "freed_graph_report.py"
        or os.path.basename(os.path.dirname(path))
        == "freed_graph_report"
    )


# --- where nodes were made --------------------------------------------


def _stack_here(skip=1):
    """(file, line, function) of each frame of the caller's stack,
    outermost first, leaving out the `skip` innermost ones."""
    frame, frames = sys._getframe(skip + 1), []
    while frame is not None:
        code = frame.f_code
        frames.append((code.co_filename, frame.f_lineno, code.co_name))
        frame = frame.f_back
    return frames[::-1]


def _on_node_created(node):
    node.metadata[MADE] = _stack_here()


def _made(node):
    """The frames that made the node, outermost first, if recorded."""
    if MADE in node.metadata:
        return node.metadata[MADE]
    stack = node.metadata.get("traceback_") or ()  # anomaly mode's
    if isinstance(stack, _Stack):
        return stack.frames()
    found = (_FRAME.search(entry) for entry in stack)
    return [(m[1], int(m[2]), m[3]) for m in found if m]


def _yours(frames):
    return [f for f in frames if not _is_library(f[0])]


def _package(path):
    """The installed package a file belongs to, or None."""
    for marker in _PACKAGES:
        if marker in path:
            rest = path.split(marker, 1)[1].lstrip(os.sep)
            return rest.split(os.sep)[0].removesuffix(".py")
    return None


def _caller(frames):
    """Who called a backward: None for your code, else the package
    whose code made the call (its innermost frame outside torch)."""
    for path, _, _ in reversed(frames):
        if path.startswith(_TORCH_DIR):
            continue
        if _is_library(path) and _is_here(path):
            continue
        return _package(path) if _is_library(path) else None
    return None


def _chain(node):
    return tuple(f[:2] for f in _yours(_made(node)))


def _where(frames, now):
    """Your line that made something: the outermost of your frames that
    the current call does not share; then your innermost, if other."""
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


# --- what a backward frees --------------------------------------------


def _name(node):
    return type(node).__name__


def _children(node):
    return [child for child, _ in node.next_functions if child]


def _is_leaf(node):
    return hasattr(node, "variable")


def _hooked(raw):
    # Saved-tensor hooks (checkpoint) would run on unpacking: do not.
    raws = raw if isinstance(raw, (list, tuple)) else [raw]
    return any(getattr(r, "unpack_hook", None) for r in raws)


# --- the record of one run --------------------------------------------


class _Call:
    """A backward() or autograd.grad() call that ran."""

    # A backward() of yours: the optimizers zeroed before it, stepped
    # after it, stepping with its gradient (id: weakrefs of the
    # parameters they hold alone; `against`: id: the dot product of
    # its gradient there with what later calls added, and both squared
    # norms), and dropping it unused.
    zeroed = stepped = frozenset()
    applied, against, dropped = {}, {}, frozenset()
    # An autograd.grad() call: the ids of its inputs a value made from
    # its gradient was taken in beside (p - lr * g moved p), and of the
    # nodes that made the moved values (the fast weights).
    moved_ids = fast_nodes = frozenset()

    def __init__(self, number, kind, site, keep, create, inputs):
        self.number, self.kind, self._site = number, kind, site
        self.keep, self.create_graph = keep, create
        self.inputs = inputs  # ids of grad()'s inputs
        self.input_refs = []  # weak references to them
        self.grad_outputs = None  # copies of the call's grad_outputs
        self.versions = {}  # id(leaf): (a weakref to it, its _version)
        self.taken_only = set()  # of those, grad()'s inputs not run
        self.values = {}  # id(leaf): sum and norm, to see .data writes
        self.seq = None  # nodes made after the call began number above
        # What a check reads: the earlier call whose graph, kept by
        # retain_graph=True, this one ran again, how many such calls,
        # how many leaves under that graph changed in between, and an
        # earlier backward() of the same loss whose .grad this one adds
        # to again.
        self.kept, self.rerun, self.reruns = [], None, 0
        self.kept_versions = {}
        self.grads_before = None  # _grads_now() before it ran
        self.root_nrs = []  # the output of its root node each tensor is
        self.cut_term = None  # (_Cut, sum site) of a cut term added
        # A grad() call's gradient moved an input it was taken for
        # ("constant": by sign()-like operations only), or was taken
        # in beside a graph (a term; "weight": as one number times
        # it); your code read the .grad a backward() wrote before the
        # next one, its copies (weakrefs: a snapshot held) in `copies`.
        self.moved, self.fed, self.grads_read = None, False, False
        self.copies = []
        self.dead = None  # (grad frames, sum frames) of a term that
        # adds nothing: a gradient with no graph, summed into this loss
        # A grad() call with no graph: whether an operation read what
        # it returned. Any call: such calls none was read of when it
        # began (no term of its loss comes from them), by id: whether
        # a gradient of theirs was still held (for a later read).
        self.read, self.unread, self.threads = False, {}, None
        self.stale, self.double = [], None
        # Leaves under a kept graph run again that your program had
        # replaced with ones of their shape (the gradient went there).
        self.replaced = []
        self.replaced_read = False  # as a kept call: its run looked
        # Leaves under a graph kept before an optimizer step and run
        # again after it: if no optimizer trains any of them, the graph
        # ran for nothing.
        self.untrained = []
        self.untrained_was = {}  # id: their version and values then
        self.every = False  # as a kept call: it ran every node below
        self.term = False  # that earlier loss is a term of this one
        self.part = False  # this loss is a term of that earlier one
        # The site of the backward running when this one began: a
        # backward inside a backward (a reentrant checkpoint's, a
        # reversible layer's, a custom Function's).
        self.within = None
        # As a finding: later calls that ran the same kept graph again
        # from the same line, for the same reason, counted here.
        self.merged = 0
        # A backward(): how many leaves it wrote a gradient to still
        # wait, whether one was used, how many were cleared unused after
        # an optimizer step (another's), and otherwise (before a step,
        # not an optimizer's, or dead); the cut values its loss read.
        self.waiting, self.used, self.lost, self.other = 0, False, 0, 0
        self.since, self.cuts, self.names, self.key = 0, (), None, None

    @property
    def site(self):
        """The frames of the call, outermost first."""
        if isinstance(self._site, _Stack):  # written out when read
            self._site = self._site.frames()
        return self._site

    def inputs_alive(self):
        """The ids of the inputs still alive (a dead one's id may be a
        new tensor's now)."""
        alive = [r() for r in self.input_refs]
        return {id(t): t for t in alive if t is not None}

    @property
    def by(self):
        """None if your code made the call, else the package's name."""
        return _caller(self.site)


_EVENTS = deque(maxlen=512)  # _Call, and (number, optimizer) steps
_COUNT = [0]
_STEPPED = weakref.WeakSet()  # the optimizers seen stepping
# id(parameter): its _version and values after its step, and a weakref
_STEP_VERSIONS = {}


def after_step(leaf):
    """(_version, values) of the leaf after its last optimizer step, or
    None: never stepped (an id outlives its tensor)."""
    entry = _STEP_VERSIONS.get(id(leaf))
    return entry[:2] if entry and entry[2]() is leaf else None


_WATCHING = []
_RUNNING = []  # the sites of the backward calls running now, outermost
_CALLING = []  # their records, in the same order
_ROOTS_NOW = []  # the nodes each starts from, in the same order
_LAST_STEP = [0]  # the event number of the last optimizer step
_FINDINGS = deque(maxlen=256)  # calls a check reports, in order
# The facts' test of leaves your program replaced (it reads your
# variables, which the facts know how to walk); set when they load.
_REPLACED = []
# (event number, ids of the parameters it had a .grad for) of each step
_STEPPED_WITH_GRAD = deque(maxlen=512)
# Gradients with no graph (from grad() without create_graph=True), and
# what is computed from them while marking is on:
# tensor: the frames of the call that made the gradient. _DEAD: a sum
# that took in such a value as a term: tensor: (those frames, the
# frames of the sum).
# Both by id, with a weakref to tell a reused id: a tensor's == is
# elementwise, so it cannot be a dictionary key.
_MARKED, _DEAD = {}, {}
# id(.grad), or of a copy your code made of it: (a weakref to it, the
# backward() that wrote it), until the next backward or step.
_WROTE = {}
# id(site): (site, the grad() call there), while its gradients are
# marked; and what only zero-derivative operations made from them.
_MOVERS, _CONSTANT = {}, {}
_MOVERS_KEPT = 8
# What was made from the gradients of more than one grad() call (a
# ratio of two norms): the ids of all their sites.
_GRAD_SOURCES = {}
# The gradients grad() returned with no graph, while marked: the call.
_UNREAD = {}
_THREADS = [0]  # threads started while watching
_OTHERS = set()  # threads alive before it began: not the program's
_SUMS = {
    "add", "sub", "__add__", "__radd__", "__sub__", "__rsub__",
    "add_", "sub_", "__iadd__", "__isub__", "stack",
}  # fmt: skip
_FLOATS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


_SET_ANOMALY = torch.set_anomaly_enabled  # the real one, for _seq_now
# The number the next graph node made in this thread will get.
_NEXT_NUMBER = getattr(torch._C._autograd, "_get_sequence_nr", None)


def _seq_now():
    """A number between those of the graph nodes made so far in this
    thread and those of the next ones: nodes made before a call number
    below it, nodes made after, above. None where no node can be made
    (under inference_mode)."""
    if _NEXT_NUMBER is not None:
        if torch.is_inference_mode_enabled():
            return None
        return _NEXT_NUMBER() - 0.5  # read without making a node
    # The probe node needs no stack: anomaly mode would format one.
    on = torch.is_anomaly_enabled()
    nan = torch.is_anomaly_check_nan_enabled()
    try:
        if on:
            _SET_ANOMALY(False)
        with torch.enable_grad():
            probe = torch.empty(0, requires_grad=True).view(0)
            return (
                probe.grad_fn._sequence_nr() if probe.grad_fn else None
            )
    finally:
        if on:
            _SET_ANOMALY(True, nan)


# A leaf's fingerprint: the sum and norm of its values (in float64 where
# the device has it), row by row of _ROW values for the small ones on
# the CPU, which are read together: on a model of small operations the
# number of operations costs more than the values. The small leaves of
# a call or a step are copied into one batch, which the next call or
# step on the same leaves shares when their versions and values are
# the same (one comparison), as they are from a step to the backward
# after it; the sums and norms of a batch's rows are taken only when a
# report reads them, or when a newer batch replaces one that may still
# be read (a leaf's version has not moved since). At most _BATCH values
# make a batch, under PyTorch's grain size (32768): a CPU reduction that
# small runs in one thread, so a row's sum is the same whatever rows
# are read with it, and a leaf read alone later compares exactly.
_ROW, _BATCH = 512, 16384
_ZEROS = {}  # (count, dtype): the zeros that end a leaf's last row
_BATCHES = {}  # (dtype, ids of its leaves): the newest batch of those


class _Batch:
    """The values of small CPU leaves read at once: a copy while they
    may still be compared, then the sums and norms of its rows (each
    leaf from a whole row, the last one ended by zeros)."""

    __slots__ = ("refs", "versions", "sizes", "values", "sums", "norms")

    def __init__(self, refs, versions, sizes, values):
        self.refs, self.versions, self.sizes = refs, versions, sizes
        self.values, self.sums, self.norms = values, None, None

    def rows(self, start, stop):
        """The sums and norms of rows start to stop, or None if this
        batch was dropped (no leaf of it could be compared again)."""
        if self.sums is None:
            if self.values is None:
                return None
            parts, at = [], 0
            for size in self.sizes:
                parts.append(self.values[at : at + size])
                at += size
                if size % _ROW:
                    parts.append(
                        _zeros(_ROW - size % _ROW, self.values.dtype)
                    )
            values = torch._C._nn.flatten_dense_tensors(parts)
            values = values.view(-1, _ROW).double()
            self.sums = values.sum(1)
            self.norms = torch.linalg.vector_norm(values, dim=1)
        return self.sums[start:stop], self.norms[start:stop]

    def alive(self):
        """True while a record may compare with it: a leaf of it lives
        and its version is the one noted (versions only grow)."""
        return any(
            ref() is not None and ref()._version == version
            for ref, version in zip(self.refs, self.versions)
        )

    def retire(self):
        """No newer reading will share it: keep its rows' sums and norms
        if a record may compare with them, and drop the copy."""
        if self.values is not None:
            if self.alive():
                with contextlib.suppress(
                    RuntimeError, NotImplementedError, TypeError
                ):  # it runs inside your backward: never raise there
                    self.rows(0, 0)
            self.values = None


def _fingerprints(leaves, keep=True):
    """Each leaf's fingerprint, kept as tensors (no device sync): a
    write through .data changes it without moving _version. None for
    what cannot be read. keep=False: a reading to compare, not a
    record."""
    found, small = [None] * len(leaves), {}  # small: dtype: [leaf]
    for i, leaf in enumerate(leaves):
        if (
            type(leaf) not in (torch.Tensor, torch.nn.Parameter)
            or leaf.dtype not in _FLOATS
            or leaf.layout != torch.strided
            or leaf.is_nested
            or leaf.is_meta
        ):  # what sum and norm cannot read: sparse, nested, subclasses
            continue  # such as DTensor (their reductions need peers)
        if leaf.is_cpu and leaf.numel() <= _BATCH:
            small.setdefault(leaf.dtype, []).append((id(leaf), i))
            continue
        data = leaf.detach()
        wide = torch.float64 if data.is_cpu or data.is_cuda else None
        with contextlib.suppress(
            RuntimeError, NotImplementedError, TypeError
        ):
            found[i] = (
                data.sum(dtype=wide or torch.float32),
                torch.linalg.vector_norm(
                    data, dtype=wide or torch.float32
                ),
            )
    for dtype, group in small.items():
        group.sort()  # by id: the same leaves, the same batch
        chunk, sizes, spans, count = [], [], [], 0
        for _, i in group:  # _BATCH values at most in one batch
            leaf = leaves[i]
            size = leaf.numel()
            rows = -(-size // _ROW)
            if spans and (count + rows) * _ROW > _BATCH:
                _read(dtype, chunk, sizes, spans, found, keep)
                chunk, sizes, spans, count = [], [], [], 0
            chunk.append(leaf)
            sizes.append(size)
            spans.append((i, count, count + rows))
            count += rows
        _read(dtype, chunk, sizes, spans, found, keep)
    return found


def _read(dtype, leaves, sizes, spans, found, keep):
    batch = _batch(dtype, leaves, sizes, keep)
    if batch is not None:
        for i, start, stop in spans:
            found[i] = (batch, start, stop)


def _batch(dtype, leaves, sizes, keep):
    """The batch of these leaves' values now: the newest one of them if
    nothing moved, else a new one."""
    grad = torch.is_grad_enabled()
    try:
        torch._C._set_grad_enabled(False)  # no graph for the copy
        values = torch._C._nn.flatten_dense_tensors(leaves)
        if len(leaves) == 1:  # a view of the one leaf, not a copy
            values = values.clone()
    except (RuntimeError, NotImplementedError, TypeError):
        return None
    finally:
        torch._C._set_grad_enabled(grad)
    versions = [t._version for t in leaves]
    if not keep:
        return _Batch([], versions, sizes, values)
    key = (dtype, tuple(map(id, leaves)))
    last = _BATCHES.pop(key, None)
    same = last is not None and all(
        r() is t for r, t in zip(last.refs, leaves)
    )
    if (
        same
        and last.values is not None
        and last.versions == versions
        and last.sizes == sizes
        and _same_bytes(last.values, values)
    ):
        batch = last
    else:
        refs = last.refs if same else [weakref.ref(t) for t in leaves]
        batch = _Batch(refs, versions, sizes, values)
        if last is not None:
            last.retire()
    _BATCHES[key] = batch  # the newest last
    oldest = next(iter(_BATCHES))
    if len(_BATCHES) > 1024 or not _BATCHES[oldest].alive():
        _BATCHES.pop(oldest).retire()  # no copy kept for nothing
    return batch


def _same_bytes(a, b):
    """True if two CPU tensors hold the same bytes (same values, so the
    same fingerprint): through NumPy's buffers, cheaper than
    torch.equal on a batch of this size."""
    try:
        return a.numpy().tobytes() == b.numpy().tobytes()
    except (RuntimeError, TypeError):  # no NumPy, or not its dtype
        return a.shape == b.shape and torch.equal(a, b)


def _zeros(count, dtype):
    """Zeros that end a leaf's last row."""
    zeros = _ZEROS.get((count, dtype))
    if zeros is None:
        zeros = _ZEROS[(count, dtype)] = torch.zeros(count, dtype=dtype)
    return zeros


def _rows(values):
    """A fingerprint's sums and norms (None if dropped)."""
    if len(values) == 2:
        return values
    batch, start, stop = values
    return batch.rows(start, stop)


def _differs(leaf, was):
    """True if the leaf's values moved since its fingerprint `was`."""
    if was is None:
        return False
    now = _fingerprints([leaf], keep=False)[0]
    if now is None:
        return False
    try:
        now, was = _rows(now), _rows(was)
    except (RuntimeError, NotImplementedError, TypeError):
        return False  # unreadable, as a leaf with no fingerprint
    if was is None:  # dropped: its version has moved since
        return True
    try:
        return not all(torch.equal(a, b) for a, b in zip(now, was))
    except RuntimeError:  # moved to another device since
        return True


def _next_number():
    _COUNT[0] += 1
    return _COUNT[0]


def steps_between(start, stop=None):
    """The optimizer class names of the steps after event `start` (and
    before `stop`)."""
    return [
        e[1]
        for e in _EVENTS
        if type(e) is tuple
        and e[0] > start
        and (stop is None or e[0] < stop)
    ]


def _calls():
    return [e for e in _EVENTS if isinstance(e, _Call)]


def _stamp(call, roots, inputs, reporter):
    """Mark every node the call ran, and note its leaves' versions; note
    a graph kept by retain_graph=True that it ran again."""
    leaves, kept, rans = [], {}, []
    nodes = _ran_by(roots, inputs, call.kind == "backward()")
    every = inputs is None  # and no node below a freed one left out
    for node in nodes:
        if hasattr(node, "variable"):  # _is_leaf, inlined
            leaves.append(node.variable)
            continue
        ran = node.metadata.setdefault(RAN, [])
        rans.append(ran)
        if ran and ran[0].keep:
            # The leaves below each kept call's nodes: what changed
            # since is asked of the call that saw them.
            kept.setdefault(ran[0], set()).update(
                id(c.variable)
                for c, _ in node.next_functions
                if hasattr(c, "variable")
            )
        every = every and all(c.keep for c in ran)
    if kept:
        _note_rerun(call, kept, roots, reporter)
    for ran in rans:
        ran.append(call)
    # grad() hands its inputs' gradients back without running their
    # leaves' nodes: note those leaves too (a hand-written update).
    seen = {id(t) for t in leaves}
    taken = [
        n.variable
        for n in inputs or ()
        if hasattr(n, "variable") and id(n.variable) not in seen
    ]
    call.taken_only = {id(t) for t in taken}
    leaves += taken
    for leaf, values in zip(leaves, _fingerprints(leaves)):
        call.versions[id(leaf)] = (weakref.ref(leaf), leaf._version)
        call.values[id(leaf)] = values
    if call.keep:
        _note_kept(call, nodes, every)
    if call.kind == "backward()" and not call.within:
        _quietly(_wait, call, leaves)
        _quietly(_note_wrote, call, leaves)
    _mark_roots(call, roots)
    _EVENTS.append(call)


def _mark_roots(call, roots):
    """Note the call on its roots, on the nodes a scaler's output
    reaches from them, and on its loss's terms (a plain backward)."""
    for root in roots:
        for node in _scaled_from(root):
            node.metadata.setdefault(ROOT, []).append(call)
    for root, nr in zip(roots, call.root_nrs):
        root.metadata.setdefault(ROOT_NR, []).append((call, nr))
        if call.kind == "backward()" and call.grad_outputs is None:
            for node, n in _terms((root, nr), None):
                node.metadata.setdefault(TERM_OF, []).append((call, n))


def _note_rerun(call, kept, roots, reporter):
    """The call ran again a graph that the `kept` calls kept (each with
    the ids of the leaves below the nodes it kept): note which, and
    the leaves under it that changed since the call that kept them."""
    first = min(kept, key=lambda c: c.number)
    call.kept, call.rerun, call.reruns = list(kept), first, len(kept)
    under = set().union(*kept.values())
    stale = {
        id(p): p
        for c, ids in kept.items()
        for p in _stale_under(c, ids)
        if _added_to(p, call.grads_before)
    }
    call.stale = list(stale.values())
    if not (
        call.stale
        or call.double
        or first.replaced_read
        or call.grads_before is None  # grad(): it writes no .grad
    ):
        first.replaced_read = True  # your variables, walked once
        call.replaced = _replaced_under(first, under, call.grads_before)
    if not (call.stale or call.double or call.replaced):
        call.untrained = [
            ref
            for c, ids in kept.items()
            for ref in _untrained_under(c, ids, call)
        ]
        untrained(call)  # trained by a step since the graph was kept
    if call.stale or call.double or call.replaced or call.untrained:
        same = _repeats(call)
        if same is not None:  # a loop's steps: one finding, counted
            same.merged += 1
            call.stale, call.double = [], None
            call.replaced, call.untrained = [], []
            return
        _FINDINGS.append(call)
        reporter.rerun(call, roots)


def _why(call):
    return (
        bool(call.stale),
        call.reruns > 1,  # history: the graphs of several calls
        bool(call.double),
        bool(call.replaced),
        bool(call.untrained),
    )


def _repeats(call):
    """The finding this rerun repeats: the same kept graph run again
    from the same line of yours, for the same reasons (at every step
    of a loop: one finding to keep, and one report to build)."""
    line, why = _yours(call.site)[-1:], _why(call)
    kept = _kept_line(call)
    for c in reversed(_FINDINGS):
        if (
            c is not call  # noted already, for a dead term
            and _why(c) == why
            and _yours(c.site)[-1:] == line
            and _kept_line(c) == kept
        ):
            return c
    return None


def _kept_line(call):
    """Your line that kept the graph a rerun ran again (a loss made
    anew at each step, backpropagated twice: one line, many calls)."""
    kept = call.double or call.rerun
    return _yours(kept.site)[-1:] if kept is not None else None


def _replaced_under(kept, under, before):
    """The leaves under `kept`'s graph (of the ids `under`) that this
    backward wrote a gradient into, and that your program replaced
    since with new leaves of their shape (a perturbation made anew
    at each step): no variable of yours holds them now."""
    leaves = _written_under(kept, under, before)
    if not leaves or not _REPLACED:
        return []
    return _REPLACED[0](leaves)


def _untrained_under(kept, under, call):
    """Weak references to the leaves under `kept`'s graph (of the ids
    `under`) this backward() wrote a gradient into, when an optimizer
    stepped since `kept` ran (a target made once with its graph, run
    again at every step). Only where `kept` ran every node below its
    roots: then these are all the leaves the run reached through the
    kept graph (a grad() of some inputs leaves the nodes below them
    out: a meta-loss reaches the model that made them). Whether
    something trains them is asked at each step and at the end: an
    optimizer made later may step them, or your code by hand."""
    if (
        call.grads_before is None
        or not kept.every
        or _LAST_STEP[0] < kept.number
    ):
        return []
    found = {
        id(t): weakref.ref(t)
        for t in _written_under(kept, under, call.grads_before)
    }
    # Trained by a step since the graph was kept: not for nothing.
    for number, stepped in _STEPPED_WITH_GRAD:
        if number > kept.number and _trained_any(
            found.values(), stepped
        ):
            return []
    for i, ref in found.items():
        call.untrained_was[i] = (ref()._version, _print(ref()))
    return list(found.values())


def _written_under(kept, under, before):
    """The leaves under `kept`'s graph (of the ids `under`) that the
    backward() just run wrote a gradient into (`before`: the .grad
    sums it found)."""
    refs = {**kept.kept_versions, **kept.versions}
    return [
        t
        for i, (ref, _) in refs.items()
        if i in under
        and (t := ref()) is not None
        and _added_to(t, before)
    ]


def untrained(call):
    """How many leaves `call.untrained` holds, if nothing trained any
    of them since (an optimizer's step, or a write by hand), and the
    run was not stopped by --steps (an optimizer that steps less often
    may not have had its turn): the graph ran for nothing."""
    if call.untrained and (
        _STEPS[1] is not None
        and _STEPS[0] >= _STEPS[1]
        or _written_any(call)
    ):
        call.untrained = []
    return len(call.untrained)


def _written_any(call):
    """True if a leaf of `call.untrained` was written since the rerun
    (its version or values moved: an update by hand)."""
    for ref in call.untrained:
        leaf = ref()
        was = call.untrained_was.get(id(leaf))
        if (
            leaf is not None
            and was is not None
            and (
                leaf._version != was[0]
                or not torch.equal(_print(leaf), was[1])
            )
        ):
            return True
    return False


def _trained_any(refs, held):
    """True if `held` (id: weak reference) holds one of these leaves."""
    return any(_holds(held, r()) for r in refs if r() is not None)


def _untrained_after_step(params):
    """After an optimizer's step: a kept graph's leaves it trains, or
    that something wrote since, were not run again for nothing (asked
    at each step: by the end of the run, your variables may be
    gone)."""
    held = {id(p): weakref.ref(p) for p in params}
    for call in [c for c in _FINDINGS if c.untrained]:
        if _trained_any(call.untrained, held) or _written_any(call):
            call.untrained = []


def _note_kept(call, nodes, every):
    """For a call that keeps its graph: the versions of every leaf its
    nodes saved or take in, the inputs of grad() included, which a
    later run of that graph may find changed. `every`: the call ran
    every node below its roots, whose leaves it noted already."""
    taken = (
        c.variable
        for node in nodes
        if not hasattr(node, "variable")
        for c, _ in node.next_functions
        if hasattr(c, "variable")
    )
    call.every = every
    call.kept_versions = (
        dict(call.versions)
        if every
        else {id(t): (weakref.ref(t), t._version) for t in taken}
    )
    _UNDER_KEPT.update(
        (i, ref) for i, (ref, _) in call.kept_versions.items()
    )


_UNDER_KEPT = {}  # id(leaf): weakref, for the leaves under kept graphs


def _grads_now():
    """The sum and norm of the .grad of each leaf under a kept graph:
    before a backward, to tell after it which ones it added to."""
    now = {}
    for i, ref in list(_UNDER_KEPT.items()):
        leaf = ref()
        if leaf is None:
            del _UNDER_KEPT[i]
        else:
            grad = _GRAD.__get__(leaf)
            now[i] = None if grad is None else _print(grad)
    return now


def _added_to(leaf, before):
    """True unless the backward() just run added only zeros to the
    leaf's .grad (a kept graph run again into another model's part,
    whose gradient is not wanted here). `before`: None for grad()."""
    if before is None or id(leaf) not in before:
        return True
    grad, was = _GRAD.__get__(leaf), before[id(leaf)]
    if grad is None:
        return False
    now = _print(grad)
    if was is None:
        return bool(now.any())
    return not torch.equal(now, was)


def changed_since(call, leaves=None):
    """The leaves (of the ids `leaves`, or all) that hold other values
    now than when `call` ran: changed in place (their version moved) or
    through .data (their sum or norm moved)."""
    changed = []
    for i, (ref, version) in call.versions.items():
        leaf = ref()
        if leaf is None or (leaves is not None and i not in leaves):
            continue
        if leaf._version != version or _differs(
            leaf, call.values.get(i)
        ):
            changed.append(leaf)
    return changed


def _stale_under(call, leaves):
    """The leaves (of the ids `leaves`) under the graph `call` kept that
    changed since: those the call reached by their version or values
    (a write through .data), the inputs of grad() by their version or
    an optimizer step that had a .grad for them (a fused step moves no
    version)."""
    stale = changed_since(call, leaves)
    stepped = {}
    for number, refs in _STEPPED_WITH_GRAD:
        if number > call.number:
            stepped.update(refs)
    return stale + [
        ref()
        for i, (ref, version) in call.kept_versions.items()
        if i in leaves
        and i not in call.versions
        and ref() is not None
        and (ref()._version != version or _holds(stepped, ref()))
    ]


def _holds(refs, tensor):
    """True if `refs` (id: weak reference) holds this very tensor: an
    id outlives its tensor, and a new tensor may take it."""
    ref = refs.get(id(tensor))
    return ref is not None and ref() is tensor


def _again(roots, nrs, kind, outs, inputs):
    """An earlier backward() of the same loss (the same output of the
    same node, or a constant multiple of it), of a loss this one sums
    as a term, or of a loss that sums this one, since the last
    optimizer step, whose gradients are still in the .grad of a leaf
    this call may write (one of its `inputs`, if given): this call
    would add them a second time. The call, whether that loss is a
    term of this one, and whether this one is a term of that."""
    if kind != "backward()":
        return None, False, False
    only = inputs and {id(t) for t in inputs}
    seeds = _copies(outs)
    for root, nr in zip(roots, nrs):
        scaled = _scaled_edges(root, nr)
        for node, n in scaled + _terms(scaled[-1], seeds):
            term = (node, n) not in scaled
            for c in _roots_of(node, n, term):
                if _counted(c, seeds, only, term):
                    return c, term, False
        if seeds is not None:
            continue
        # A term backpropagated after the sum that took it in: it gets
        # its gradient again (a loss shared by two optimizers' losses).
        for node, n in scaled:
            for c, m in node.metadata.get(TERM_OF, ()):
                if m == n and _counted(c, None, only, True):
                    return c, False, True
    return None, False, False


def _counted(c, seeds, only, trained):
    """True if the earlier call `c` was a backward() since the last
    step, with these `seeds`, whose gradients are still in .grad."""
    return (
        c.kind == "backward()"
        and c.number > _LAST_STEP[0]
        and _same(c.grad_outputs, seeds)
        and _grads_left(c, only, trained=trained)
    )


def _roots_of(node, nr, term):
    """The calls that backpropagated this output of the node as their
    loss; for a term, also those that backpropagated a constant multiple
    of it (a loss times a scale, as GradScaler's)."""
    calls = [c for c, n in node.metadata.get(ROOT_NR, ()) if n == nr]
    return calls + (node.metadata.get(ROOT, []) if term else [])


def _grads_left(call, only=None, trained=False):
    """True if a leaf the call reached (of the ids `only`, if given;
    only parameters, if `trained`: an input's .grad, as an adversarial
    example reads it, is not a step's gradient) still holds a non-zero
    .grad."""
    params = trained and _trained()
    for i, (ref, _) in call.versions.items():
        leaf = ref()
        if (
            leaf is None
            or leaf.grad is None
            or (only and i not in only)
            or (
                trained
                and i not in params
                and not isinstance(leaf, torch.nn.Parameter)
            )
        ):
            continue
        with contextlib.suppress(RuntimeError, TypeError):
            if leaf.grad.any():
                return True
    return False


def _trained():
    """The ids of the tensors the optimizers seen stepping update."""
    return {
        id(p)
        for o in list(_STEPPED)
        for group in o.param_groups
        for p in group["params"]
    }


def _same(a, b):
    """True if two lists of grad_outputs hold the same values."""
    if a is None or b is None or len(a) != len(b):
        return a is b
    return all(
        x is y
        or (
            x is not None
            and y is not None
            and x.shape == y.shape
            and torch.equal(x, y)
        )
        for x, y in zip(a, b)
    )


# A loss times or over a constant is the same loss: GradScaler and the
# frameworks (Lightning's loss / normalize, accelerate's loss /
# gradient_accumulation_steps) backpropagate such a copy of yours.
_SCALINGS = {"MulBackward0", "DivBackward0", "NegBackward0"}


def _scaled_from(root, most=3):
    """The root, and the losses it is a constant multiple of."""
    found = [root]
    while len(found) <= most and _name(found[-1]) in _SCALINGS:
        kids = [c for c, _ in found[-1].next_functions if c is not None]
        if len(kids) != 1 or _is_leaf(kids[0]):
            break
        found.append(kids[0])
    return found


def _scaled_edges(root, nr, most=3):
    """(node, output number) of the loss and of the losses it is a
    constant multiple of (as _scaled_from, with the output each edge
    takes: two losses that unbind one tensor share a node)."""
    found = [(root, nr)]
    while len(found) <= most and _name(found[-1][0]) in _SCALINGS:
        kids = [(c, n) for c, n in found[-1][0].next_functions if c]
        if len(kids) != 1 or _is_leaf(kids[0][0]):
            break
        found.append(kids[0])
    return found


# A sum passes its gradient to each term unchanged, or times a
# constant: a loss that is a term of another gets that gradient again.
_LINEAR = {
    "AddBackward0",
    "SubBackward0",
    "CloneBackward0",
    "StackBackward0",
    "SumBackward0",
    "MeanBackward0",
} | _SCALINGS - {"NegBackward0"}  # a negated loss cancels, not counts


def _terms(edge, seeds, most=64):
    """The (node, output number) of the scalar losses a scalar loss
    sums, through sums and constant multiples: none where the loss was
    given a gradient of its own (`seeds`)."""
    if seeds is not None:
        return []
    found, todo, seen = [], [edge], set()
    while todo and len(seen) < most:
        node, nr = todo.pop()
        if node in seen or _name(node) not in _LINEAR:
            continue
        seen.add(node)
        kids = [(c, n) for c, n in node.next_functions if c]
        if _name(node) in _SCALINGS and len(kids) != 1:
            continue  # a product of two losses: not a constant multiple
        if _name(node) == "SubBackward0":  # what it subtracts is not
            kids = [e for e in node.next_functions[:1] if e[0]]  # added
        for kid in kids:
            if not _is_leaf(kid[0]):
                found.append(kid)
                todo.append(kid)
    return found


def _ran_by(roots, inputs, runs_input_node):
    """The nodes a backward from `roots` runs: all of them, or with
    `inputs`, those on a way to one (and a non-leaf input's own node
    for backward(inputs=), which runs it too)."""
    seen, order, todo = set(), [], list(roots)
    while todo:
        node = todo.pop()
        if node in seen:
            continue
        seen.add(node)
        order.append(node)
        ran = (
            None
            if hasattr(node, "variable")
            else node.metadata.get(RAN)
        )
        if not ran or all(c.keep for c in ran):
            # Below a freed node, an earlier call marked all.
            for child, _ in node.next_functions:
                if child is not None:
                    todo.append(child)
    if inputs is None:
        return order
    needed, targets = set(), set(inputs)
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


def _as_list(tensors):
    if tensors is None:
        return None
    return (
        [tensors]
        if isinstance(tensors, torch.Tensor)
        else list(tensors)
    )


def _copies(grads):
    grads = _as_list(grads)
    if grads is not None:
        return [
            None if g is None else g.detach().clone() for g in grads
        ]


_ARGS = {  # their parameters, in order, as far as this file reads them
    "backward()": (
        "tensors", "grad_tensors", "retain_graph", "create_graph"
    ),
    "autograd.grad()": (
        "outputs", "inputs", "grad_outputs", "retain_graph",
        "create_graph",
    ),
}  # fmt: skip


def _once(value):
    if value is None or isinstance(
        value, (bool, torch.Tensor, list, tuple, dict, str)
    ):
        return value
    if hasattr(value, "__next__"):
        return tuple(value)
    return value


INPLACE = "modified by an inplace operation"


def _given(kind, args, kwargs):
    """What a backward() or grad() call was given: the tensors, their
    grad_outputs, the inputs, and whether it keeps and builds a
    graph."""
    given = dict(zip(_ARGS[kind], args), **kwargs)
    tensors = given.get("tensors", given.get("outputs"))
    outs = given.get("grad_tensors", given.get("grad_outputs"))
    create = bool(given.get("create_graph"))
    keep = given.get("retain_graph")
    keep = create if keep is None else bool(keep)
    inputs = _as_list(given.get("inputs"))
    return _as_list(tensors), outs, inputs, keep, create


def _wrap(real, kind, reporter):
    def call(*args, **kwargs):
        # A generator (model.parameters()) can be read once: read it
        # into a tuple that both this file and the real call use.
        args = [_once(a) for a in args]
        kwargs = {k: _once(v) for k, v in kwargs.items()}
        tensors, outs, inputs, keep, create = _given(kind, args, kwargs)
        roots = [t.grad_fn for t in tensors if t.grad_fn]
        site, ours = _site(), False
        given = tensors, outs, inputs, keep, create
        ran = _about_to_run(kind, site, given, reporter)
        if kind == "backward()" and not ran.within:
            _quietly(_own, ran)
        _RUNNING.append(site)
        _CALLING.append(ran)
        _ROOTS_NOW.append(roots)
        try:
            result = real(*args, **kwargs)
            if kind == "autograd.grad()" and not create:
                _MARKING.start(_as_list(result), site, ran)
                _cut_by_grad(tensors, _as_list(result))
            elif kind == "autograd.grad()":
                _scaled_grads(tensors, _as_list(result), site)
                _once_at_root(roots, inputs, _as_list(result), site)
            elif keep and not create:
                _MARKING.reads(site)  # .grad, read before its next use
            return result
        except RuntimeError as error:
            ours = _tell(error, reporter, roots, site, outs)
            inputs = None  # it failed: any node may have run
            ran.inputs, ran.input_refs = None, []
            raise
        finally:
            _RUNNING.pop()
            _CALLING.pop()
            _ROOTS_NOW.pop()
            if not ours:
                ran.number = _next_number()
                _record(ran, roots, inputs, reporter)
            # After the records: their own work cuts nothing.
            _MARKING.resume()

    call.__wrapped__ = real
    return call


def _about_to_run(kind, site, given, reporter):
    """The record of a call about to run, with what is read before it
    runs: the loss it would count again, the term with no graph it
    sums, the .grad it may add to, the cut values it reads, and the
    backward it runs inside, if any. Its number comes after it ran."""
    tensors, outs, inputs, keep, create = given
    roots = [t.grad_fn for t in tensors if t.grad_fn]
    nrs = [t.output_nr for t in tensors if t.grad_fn]
    ids = inputs and [id(t) for t in inputs]
    ran = _Call(None, kind, site, keep, create, ids)
    ran.seq, ran.root_nrs = _seq_now(), nrs
    ran.key = _line_key() if kind == "backward()" else None
    # What a backward() adds to .grad (grad() adds nothing there).
    watched = _UNDER_KEPT and kind == "backward()"
    ran.grads_before = _grads_now() if watched else None
    ran.double, ran.term, ran.part = _again(
        roots, nrs, kind, outs, inputs
    )
    # Marks are this thread's: a gradient read in another thread (a
    # pool's worker) goes unseen, so none is unread where another
    # thread runs, or one started since the gradient was made.
    alone = _UNREAD and all(t in _OTHERS for t in threading.enumerate())
    for ref, c in _UNREAD.values() if alone else ():
        if not c.read and c.threads == _THREADS[0]:
            held = ran.unread.get(id(c), False) or ref() is not None
            ran.unread[id(c)] = held
    scaled = [_get(_SCALED, t) for t in tensors if _get(_SCALED, t)]
    if scaled and kind == "backward()":
        _SCALED_FOUND.append((scaled[0], site))
    ran.dead = _MARKING.stop(tensors, kind == "backward()")
    # The forward this call runs back through (an id is kept by the
    # calls recorded, or the one running: a new call may reuse it).
    _DATA_OF.pop(id(ran), None)
    if _DATA_NOW:
        _DATA_OF[id(ran)] = (
            dict(_DATA_NOW),
            _MET_NOW[0],
            tuple(_MET_CUTS),
        )
        _DATA_NOW.clear()
        _MET_CUTS.clear()
        _MET_NOW[0] = math.inf
        while len(_DATA_OF) > _EVENTS.maxlen:  # a run with no step
            del _DATA_OF[next(iter(_DATA_OF))]
    if kind == "backward()" and _CUTTING[0]:
        _read_cuts(tensors, reporter)
        _note_cuts(ran, tensors)
        _quietly(_note_same_pass, ran)
    if kind == "backward()" and _WAITING:
        _quietly(_look_waiting)
    # An id outlives its tensor: a new tensor may take it.
    ran.input_refs = [weakref.ref(t) for t in inputs or ()]
    ran.grad_outputs = _copies(outs)
    # Inside a backward of this thread (the engine runs a node's
    # backward now): its site, if one of the calls watched is it.
    if torch._C._current_autograd_node() is not None:
        within = _RUNNING[-1] if _RUNNING else ()
        ran.within = within and _frames(within)
    return ran


def _tell(error, reporter, roots, site, outs):
    """Hand this site's error, or the in-place one, to the reporter
    once (an outer call sees it again); True for this site's."""
    ours = MESSAGE in str(error)
    known = ours or INPLACE in str(error)
    if known and not hasattr(error, "_reported"):
        error._reported = True
        tell = reporter.freed if ours else reporter.inplace
        tell(error, roots, _frames(site), outs)
    return ours


def _record(call, roots, inputs, reporter):
    """Keep the record of a call that ran (or failed otherwise)."""
    if call.dead or call.cut_term:
        _FINDINGS.append(call)
    if _HELD_COPIES and call.kind == "backward()" and not call.within:
        _quietly(_compare_held)
    cut = call.cut_term and call.cut_term[0]
    if cut and cut.names is None and _NAMER[0] is not None:
        # Named while your variables are alive: once for each cut.
        leaves = {
            id(p): p for r in cut.params if (p := r()) is not None
        }
        cut.names = _quietly(_NAMER[0], leaves) or {}
    edge = torch.autograd.graph.get_gradient_edge
    try:
        edges = inputs and [edge(t).node for t in inputs]
    except (AttributeError, RuntimeError):  # torch.func's inputs
        return
    _stamp(call, roots, edges, reporter)


def _site():
    """The stack of a backward's caller: taken, not yet written out."""
    if _GATHER is None:
        return _stack_here(2)
    return _Stack(_GATHER(python=True, script=False, cpp=False))


def _frames(stack):
    return stack.frames() if isinstance(stack, _Stack) else stack


def _params(optimizer):
    return [
        p for group in optimizer.param_groups for p in group["params"]
    ]


def _note_wrote(call, leaves):
    """The .grad a backward() wrote: your code may take it in before
    the next backward or step."""
    _WROTE.clear()
    for leaf in leaves:
        grad = _GRAD.__get__(leaf)
        if grad is not None:
            _WROTE[id(grad)] = weakref.ref(grad), call


def _read_wrote(func, args, out):
    """An operation of your code took in a .grad a backward() wrote and
    made a value of its size or more from it (a copy, a flattened or
    normalized one: not a norm, a check), or changed it in place
    other than clearing it (clipped, scaled: the next backward adds
    onto what you changed): that call's gradients were read apart."""
    hits = [
        (a, call)
        for a in _tensors_in(args, {})
        for ref, call in (_WROTE.get(id(a), (None, None)),)
        if ref is not None and ref() is a
    ]
    outs = [o for o in pytree.tree_leaves(out) if torch.is_tensor(o)]
    name = _op_name(func)
    own = {id(t) for t in _tensors_in(args[:1], {})}
    inplace = name.endswith("_") or name == "__setitem__"
    written = inplace and any(id(a) in own for a, _ in hits)
    if written:
        # A write into the gradient itself (the first argument, or a
        # foreach's first list): read apart unless a clear.
        hits = [(a, c) for a, c in hits if id(a) in own]
        outs = [] if _clears(name, args) else [hits[0][0]]
    elif inplace:
        # Into a tensor of yours: a copy_ into a buffer, or into rows
        # of one (a Jacobian's), is a copy kept; anything else (a step
        # written by hand) no reading apart.
        copied = name in ("copy_", "__setitem__")
        outs = [args[0]] if copied else []
    if not hits or not outs or not outs[0].is_floating_point():
        return
    frame = sys._getframe(1)
    # Past this file and torch's own Python (a wrapper of torch's, a
    # utility such as clip_grad_norm_) to the caller.
    while frame is not None and (
        _is_here(frame.f_code.co_filename)
        or frame.f_code.co_filename.startswith(_TORCH_DIR)
    ):
        frame = frame.f_back
    if frame is None or _is_library(frame.f_code.co_filename):
        return
    for a, call in hits:
        if written:
            call.grads_read = True
        elif outs[0].numel() >= a.numel():
            call.grads_read = True
            # A copy is read on as the gradient (flattened, then
            # joined): what it makes is a copy too.
            call.copies.append(weakref.ref(outs[0]))
            _WROTE[id(outs[0])] = call.copies[-1], call


# In-place operations that clear a gradient rather than change it (an
# overwrite too: what it writes was read where it was made).
_CLEARS = {"zero_", "_foreach_zero_", "detach_", "requires_grad_"}
_CLEARS |= {"copy_", "_foreach_copy_"}
_BY_ZERO = {"fill_", "mul_", "_foreach_mul_"}  # with 0: a clear


def _clears(name, args):
    """True if an in-place operation on a gradient clears it (with 0
    where it takes a number: grad[:] = 0 too)."""
    if name in _BY_ZERO or name == "__setitem__":
        by = args[-1] if len(args) > 1 else None
        return isinstance(by, (int, float)) and by == 0
    return name in _CLEARS


def _before_step(optimizer, args, kwargs):
    _WROTE.clear()
    _MARKING.pause()
    _step_uses(optimizer)
    # The step reads every .grad (no loss's term), then ends the marks.
    _MARKING.unwatch_reads()


def _after_step(optimizer, args, kwargs):
    _MARKING.stop(())  # a penalty is summed before the step it trains
    _STEPPED.add(optimizer)
    _quietly(_note_stepped, optimizer)
    name = type(optimizer).__name__
    _LAST_STEP[0] = _next_number()
    _EVENTS.append((_LAST_STEP[0], name))
    params = _params(optimizer)
    _use_stepped(params, after=True)  # a closure's backward ran inside
    # What this step may have changed: a fused step moves no version.
    grads = {
        id(p): weakref.ref(p)
        for p in params
        if _GRAD.__get__(p) is not None
    }
    _STEPPED_WITH_GRAD.append((_LAST_STEP[0], grads))
    _step_cuts(params, grads)  # against the last step's fingerprints
    _untrained_after_step(params)
    for p, values in zip(params, _fingerprints(params)):
        _STEP_VERSIONS[id(p)] = (p._version, values, weakref.ref(p))
    _STEPS[0] += 1
    _GRADDED.update(grads)
    _cuts_after_step()
    _MARKING.resume()
    if _STEPS[0] == _STEPS[1]:
        raise StepsDone(_STEPS[0])


class _Marking(torch.overrides.TorchFunctionMode):
    """On between a gradient taken with no graph (autograd.grad()
    without create_graph=True, or a backward() that keeps its graph
    and writes .grad; not in a program that uses torch.compile) and the
    next backward() or optimizer step: what is computed from that
    gradient is marked, and a sum that takes in a marked value with no
    graph as one term (a penalty) is noted: that term adds nothing to
    any gradient. Also on after grad() of a GradScaler's scaled output
    (its gradients carry the scale until multiplied by its inverse),
    and while cuts are followed."""

    def __init__(self):
        super().__init__()
        self.on = False
        self.backward = None  # the site of a backward whose .grad reads
        # are gradients with no graph

    def reads(self, site):
        """Mark what your code reads from .grad, and computes from it,
        after the backward() at `site` kept its graph: a loss may sum
        it. Until then only .grad reads cost anything."""
        if _compiled():
            return
        self.backward = site
        torch.Tensor.grad = _READ_GRAD

    def unwatch_reads(self):
        """Reads of .grad cost nothing again (TensorBase's .grad)."""
        if "grad" in torch.Tensor.__dict__:
            del torch.Tensor.grad

    def read(self, grad):
        """Mark a gradient your code read from .grad."""
        _put(_MARKED, grad, _ReadGrad(self.backward, _stack_here(2)))
        self._enter()

    def start(self, grads, site, call):
        """Mark these gradients, made with no graph by the grad() call
        `call` at `site`, and what is computed from them until the next
        backward; each is unread until an operation takes it in."""
        grads = [g for g in grads or () if g is not None]
        if not grads or _compiled():
            return  # torch.compile traces a mode as its own: keep out
        call.threads = _THREADS[0]
        # The last few grad() calls' (the gradients that weigh a loss
        # are often two): a loop of them keeps no long record.
        while len(_MOVERS) >= _MOVERS_KEPT:
            del _MOVERS[next(iter(_MOVERS))]
        _MOVERS[id(site)] = site, call
        for g in grads:
            _put(_MARKED, g, site)
            _put(_UNREAD, g, call)
        self._enter()

    def stop(self, tensors, leave=True):
        """Stop marking before a backward() or grad() call (its real
        call would come back through this mode), and leave it (`leave`)
        before a backward() or after an optimizer step: after a grad()
        call a loss may still sum what was marked. The term, if the
        tensors backpropagated now took one in."""
        dead = [_get(_DEAD, t) for t in tensors or () if _get(_DEAD, t)]
        self.pause()
        if leave:
            self.backward = None
            self.unwatch_reads()
            _MARKED.clear()
            _GRAD_SOURCES.clear()
            _MOVERS.clear()
            _CONSTANT.clear()
            _DEAD.clear()
            _UNREAD.clear()
            _SCALED.clear()
        return dead[0] if dead else None

    def resume(self):
        """Go on marking after a backward() or grad() call, or a step,
        while anything is marked or cuts are followed."""
        if _compiled():
            _CUTTING[0] = False
        elif _MARKED or _DEAD or _SCALED or _CUTTING[0]:
            self._enter()

    def _enter(self):
        if not self.on:
            self.__enter__()
            self.on = True

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if torch.compiler.is_compiling():
            # What torch.compile traces is not marked, and it traces
            # this method too: it reads nothing else.
            return func(*args, **(kwargs or {}))
        # detach_() takes its graph away: read it first.
        before = (
            _leaves_of(args[:1])
            if _CUTTING[0]
            and func is torch.Tensor.detach_
            and args[0].requires_grad
            else None
        )
        out = func(*args, **(kwargs or {}))
        if _DETACHED:
            _quietly(_read_detached, func, args, kwargs)
        if _CUTTING[0] and func in _DETACHES[:2]:
            _quietly(_watch_detached, args, out)
        if _CUTTING[0] and type(out) in _DATA_OUTS:
            _quietly(_note_data, func, args, kwargs or {}, out)
        if _WROTE:
            _quietly(_read_wrote, func, args, out)
        if self.on and _MARKED:
            _mark(func, args, kwargs or {}, out)
        if self.on and _SCALED:
            _carry_scaled(func, args, kwargs or {}, out)
        if _CUTTING[0] and (
            _CUTS
            or not torch.is_grad_enabled()
            or func in _DETACHES
            or getattr(func, "__self__", None) is _DATA
        ):
            # A check must never become the program's error.
            with contextlib.suppress(Exception):
                _cut(func, args, kwargs or {}, out, before)
        return out

    def pause(self):
        """Leave the mode before Tensor.backward(), keeping the marks:
        inside the mode's own handler, the backward could not leave
        it."""
        if self.on and _top_mode() is self:
            self.__exit__(None, None, None)
            self.on = False


_GRAD = torch._C.TensorBase.__dict__["grad"]


def _read_grad(tensor):
    grad = _GRAD.__get__(tensor)
    # Your code's reads: an optimizer's are not a loss's terms.
    yours = not _is_library(sys._getframe(1).f_code.co_filename)
    marking = _MARKING.backward is not None
    if marking and yours and grad is not None and not grad.grad_fn:
        _MARKING.read(grad)
    if yours and id(tensor) in _WAITING:
        _quietly(_settle, id(tensor), used=True)
    return grad


# Tensor.grad while marking reads: TensorBase's, and a mark on what
# your code reads.
_READ_GRAD = property(_read_grad, _GRAD.__set__, _GRAD.__delete__)


class _ReadGrad:
    """A gradient read from .grad: the backward() that wrote it, and
    where it was read."""

    def __init__(self, site, read):
        self.site, self.read = site, read


def _mark(func, args, kwargs, out):
    flat = [
        t
        for t in pytree.tree_leaves((args, kwargs))
        if isinstance(t, torch.Tensor)
    ]
    marked = [t for t in flat if _get(_MARKED, t)]
    for t in marked:
        if call := _get(_UNREAD, t):
            call.read = True
    dead = [_get(_DEAD, t) for t in flat if _get(_DEAD, t)]
    if not (marked or dead):
        return
    outs = [
        t
        for t in pytree.tree_leaves(out)
        if isinstance(t, torch.Tensor)
    ]
    if marked:
        _quietly(_note_moved, func, flat, marked, outs)
    site = _get(_MARKED, marked[0]) if marked else None
    sources = set().union(*map(_sources, marked))
    for o in outs:
        if marked and not o.requires_grad:  # a gradient has no graph
            _put(_MARKED, o, site)
            if len(sources) > 1:
                _put(_GRAD_SOURCES, o, sources)
        if dead and not o.is_leaf:  # a loss, not a parameter updated
            _put(_DEAD, o, dead[0])
    term = [t for t in marked if not t.requires_grad and t.numel() == 1]
    # A loss has a graph: a parameter updated with its gradient (p - lr
    # * g, a first-order inner step) is a leaf, and a fast weight that
    # gradient was taken for is a step's too.
    if (
        term
        and getattr(func, "__name__", "") in _SUMS
        and any(t.requires_grad and not t.is_leaf for t in flat)
        and not _taken_for(term, flat)
    ):
        for o in outs:
            _put(_DEAD, o, (_get(_MARKED, term[0]), _stack_here(1)))


def _taken_for(marked, flat):
    """True if a tensor in `flat` is one that a marked gradient's
    grad() call took the gradient for."""
    ids = {id(u) for u in flat}
    return any(
        (call := _mover(t)) and ids & set(call.inputs or ())
        for t in marked
    )


def _mover(t):
    """The grad() call whose gradient the marked tensor `t` was made
    from, if its record is still kept (None if not)."""
    site, call = _MOVERS.get(id(_get(_MARKED, t)), (None, None))
    return call if site is _get(_MARKED, t) else None


def _sources(t):
    """The ids of the grad() sites a marked tensor was made from."""
    return {id(_get(_MARKED, t))} | (_get(_GRAD_SOURCES, t) or set())


def _note_moved(func, flat, marked, outs):
    """What a gradient with no graph makes: through operations whose
    derivative is zero (sign()), a constant direction; taken in beside
    a value with a graph, a term of what that makes (a residual, a
    penalty); added to, or subtracted from, a leaf the gradient was
    taken for, in its shape (x + eps * g.sign()), a move of that
    input. The last two are noted on the grad() call."""
    constant = all(_get(_CONSTANT, t) for t in marked)
    if constant or _op_name(func) in _ZERO_DERIVATIVE:
        for o in (o for o in outs if not o.requires_grad):
            _put(_CONSTANT, o, True)
    # Under no_grad nothing takes a graph in (a lookahead's forward),
    # nor does a write into .grad (p.grad = g: its setter sees p).
    if (
        torch.is_grad_enabled()
        and any(u.requires_grad for u in flat)
        and _op_name(func) != "__set__"
    ):
        # One number times a loss (d_weight * g_loss): a weight.
        weight = _op_name(func) in _SCALES and all(
            t.numel() == 1 for t in marked
        )
        for key in set().union(*map(_sources, marked)):
            site, call = _MOVERS.get(key, (None, None))
            if call is not None:
                call.fed = (call.fed or "weight") if weight else True
    if _op_name(func) not in _SUMS or not outs:
        return
    # An input made a leaf to be differentiated (data), not a value
    # with a graph (a fast weight an inner loop moves).
    others = [
        u
        for u in flat
        if u.requires_grad and u.is_leaf and u.shape == outs[0].shape
    ]
    for t in marked:
        if (call := _mover(t)) is None:
            continue
        ids = set(call.inputs or ())
        moved = [u for u in others if id(u) in ids]
        if any(r() is u for r in call.input_refs for u in moved):
            kept = constant and call.moved != "moved"
            call.moved = "constant" if kept else "moved"
            call.moved_ids = call.moved_ids | {id(u) for u in moved}
            if outs[0].grad_fn is not None:
                call.fast_nodes = call.fast_nodes | {
                    id(outs[0].grad_fn)
                }


_SCALES = {"mul", "__mul__", "__rmul__", "div", "__truediv__"}
# What has a zero derivative wherever it has one.
_ZERO_DERIVATIVE = {
    "sign", "sgn", "round", "floor", "ceil", "trunc", "argmax",
    "argmin", "detach", "gt", "lt", "ge", "le", "eq", "ne", "__gt__",
    "__lt__", "__ge__", "__le__", "__eq__", "__ne__",
}  # fmt: skip


def _get(marks, tensor):
    entry = marks.get(id(tensor))
    return entry[1] if entry and entry[0]() is tensor else None


def _put(marks, tensor, value):
    marks[id(tensor)] = (weakref.ref(tensor), value)


# --- mixed precision: gradients still scaled (checks of a run) -------

_SCALERS = weakref.WeakSet()  # GradScalers that scaled since update()
_SCALER_OUTS = {}  # tensor: the GradScaler whose scale() returned it
_SCALED = {}  # tensor: the _ScaledGrads it is computed from
_CLIPS = []  # _Clip records of .grad clipped while scaled
_SCALED_FOUND = deque(maxlen=256)  # _Clip, or (_ScaledGrads, site)
_MULS = {
    "mul", "__mul__", "__rmul__", "mul_", "__imul__", "_foreach_mul",
    "_foreach_mul_",
}  # fmt: skip
_DIVS = {
    "div", "__truediv__", "div_", "__itruediv__", "_foreach_div",
    "_foreach_div_",
}  # fmt: skip
_LIMITS = {"norm": "max_norm", "value": "clip_value"}
# What these return does not change when their input is scaled.
_SCALE_FREE = {"cosine_similarity", "normalize", "sign", "sgn"}


class _ScaledGrads:
    """Gradients that autograd.grad() took, with a graph, of an output
    that GradScaler.scale() made: where, and the scale they carry."""

    __slots__ = ("site", "scale")

    def __init__(self, site, scale):
        self.site, self.scale = site, scale


class _Clip:
    """A clip of .grad while a GradScaler's scaled backward had left it
    scaled: where, how (norm or value), its limit, the norm it measured
    (a tensor, read at its scaler's step only, under a finite limit),
    its parameters' ids, and the optimizers the scaler had unscaled
    then."""

    __slots__ = (
        "site", "how", "limit", "measured", "ids", "scaler",
        "unscaled", "scale",
    )  # fmt: skip

    def __init__(self, site, how, limit, measured, ids, scaler):
        self.site, self.how, self.limit = site, how, limit
        self.measured, self.ids, self.scaler = measured, ids, scaler
        states = getattr(scaler, "_per_optimizer_states", {})
        self.unscaled = {
            key
            for key, state in states.items()
            if getattr(state.get("stage"), "name", "") == "UNSCALED"
        }
        self.scale = None  # read when its scaler steps

    def cut(self):
        """True if the clip changed the gradients (a clip with no limit,
        or one above the norm it measured, is a log): an overflow's
        norm (inf, nan) counts, its step is skipped."""
        limit = float(self.limit)
        if math.isinf(limit):
            return False
        if self.how == "value":
            return True
        measured = float(self.measured)
        return not measured <= limit


def _scaling(real):
    """GradScaler.scale that notes the scaler, and what it returned."""

    def scale(self, outputs):
        out = real(self, outputs)
        if self.is_enabled():
            _SCALERS.add(self)
            for t in pytree.tree_leaves(out):
                if isinstance(t, torch.Tensor):
                    _put(_SCALER_OUTS, t, self)
        return out

    return scale


def _scaler_steps(real):
    """GradScaler.step that first checks the clips of its optimizer's
    parameters made before unscale_()."""

    def step(self, optimizer, *args, **kwargs):
        owned = {
            id(p) for group in optimizer.param_groups
            for p in group["params"]
        }  # fmt: skip
        for clip in [c for c in _CLIPS if c.scaler is self]:
            _CLIPS.remove(clip)
            if id(optimizer) in clip.unscaled or not clip.ids & owned:
                _CLIPS.append(clip)  # another optimizer's step
            elif clip.cut():
                clip.scale = self.get_scale()
                _SCALED_FOUND.append(clip)
        # A step skipped for an inf gradient used it all the same.
        _step_uses(optimizer)
        return real(self, optimizer, *args, **kwargs)

    return step


def _scaler_updates(real):
    """GradScaler.update that forgets what this scaler's step read."""

    def update(self, *args, **kwargs):
        _SCALERS.discard(self)
        _CLIPS[:] = [c for c in _CLIPS if c.scaler is not self]
        for key in [k for k, (r, _) in _SCALER_OUTS.items() if not r()]:
            del _SCALER_OUTS[key]
        return real(self, *args, **kwargs)

    return update


def _clipping(real, how):
    """clip_grad_norm_ or clip_grad_value_ that notes a clip made
    while a scaler that scaled a loss since its update() is about."""

    def clip(parameters, *args, **kwargs):
        if not _SCALERS:
            return real(parameters, *args, **kwargs)
        params = (
            [parameters]
            if isinstance(parameters, torch.Tensor)
            else list(parameters)
        )
        result = real(params, *args, **kwargs)
        limit = args[0] if args else kwargs.get(_LIMITS[how])
        ids = {id(p) for p in params if p.grad is not None}
        site = _site()
        for scaler in list(_SCALERS):
            _CLIPS.append(_Clip(site, how, limit, result, ids, scaler))
        return result

    clip.__wrapped__ = real
    return clip


def _scaled_grads(outputs, grads, site):
    """Mark the gradients autograd.grad() took, with a graph, of an
    output GradScaler.scale() made, and what is computed from them."""
    scalers = [_get(_SCALER_OUTS, t) for t in outputs]
    scaler = next((s for s in scalers if s is not None), None)
    grads = [g for g in grads or () if g is not None]
    if scaler is None or not grads or _compiled():
        return
    mark = _ScaledGrads(site, scaler.get_scale())
    for g in grads:
        _put(_SCALED, g, mark)
    _MARKING._enter()


def _carry_scaled(func, args, kwargs, out):
    """What is computed from scaled gradients is scaled, unless the
    operation takes the scale out (_unscales); done in place, the
    tensor it wrote is no longer scaled."""
    flat = [
        t
        for t in pytree.tree_leaves((args, kwargs))
        if isinstance(t, torch.Tensor)
    ]
    marks = [_get(_SCALED, t) for t in flat if _get(_SCALED, t)]
    if not marks:
        return
    if _unscales(func, args, marks[0].scale):
        name = func.__name__
        if name.endswith("_") or name.startswith("__i"):  # in place
            for t in pytree.tree_leaves(args[0]):
                _SCALED.pop(id(t), None)
        return
    for o in pytree.tree_leaves(out):
        if isinstance(o, torch.Tensor):
            _put(_SCALED, o, marks[0])


def _unscales(func, args, scale):
    """True if the operation takes the scale out: a function that does
    not see it (a cosine, a sign, a normalization), a quotient of two
    scaled values, or a multiplication (division) by a constant that
    shrinks (grows) what it takes by the square root of the scale or
    more (1 / scale, a weight folded into 1 / scale**2)."""
    name = getattr(func, "__name__", "")
    if name in _SCALE_FREE or scale <= 1:
        return True
    if name in _MULS:
        factors = [a for a in args[:2] if _get(_SCALED, a) is None]
        power = -1
    elif name in _DIVS:
        if _get(_SCALED, args[1]) is not None:
            return True  # scaled over scaled
        factors, power = args[1:2], 1
    else:
        return False
    for f in factors:
        if isinstance(f, torch.Tensor):
            if f.numel() != 1:
                continue
            f = f.item()
        shrinks = isinstance(f, (int, float)) and f != 0
        if shrinks and math.log(abs(f)) * power >= math.log(scale) / 2:
            return True
    return False


# --- cuts: where a value leaves its graph (checks of a run) -----------

CUT_STEPS = 4  # cuts are followed during the first optimizer steps
_CUTS = {}  # tensor: the _Cut records its value came through
# tensor: (the _Cut of a value with no graph that a sum took in as a
# term beside a graph, the sum's site), while only sums and constant
# multiples followed: a loss made so adds a constant.
_CUT_TERMS = {}
_CUTTING = [False]
_DETACHES = (torch.Tensor.detach, torch.detach, torch.Tensor.detach_)
_DATA = torch._C.TensorBase.__dict__["data"]
_SETITEM = torch.Tensor.__setitem__
_SOURCES = {}  # grad_fn node: its leaves (until the next step)
_CUT_PARAMS = {}  # id(parameter): its _CutParameter
_READ_NOW = []  # the cuts read by a backward since the last step
# What operations with a graph took in with no graph of its own (data,
# targets, masks) since the last backward() or grad() call: (the
# tensor it views, where it starts, its version, its shape): a weakref
# to that tensor. Each call keeps the forward before it (by id).
_DATA_NOW = {}
_MET_NOW = [math.inf]  # the sequence number of the oldest node met
_DATA_OF = {}  # id(call): (its _DATA_NOW, _MET_NOW, _MET_CUTS)
# The cuts an operation took in beside data since the last call.
_MET_CUTS = {}
# (the cut, the backward() call whose forward took that state in beside
# the data the forward before `cut.carried` took in, and nothing new).
_SAME_PASS = deque(maxlen=64)
_DATA_FROM = {}  # tensor: the _DATA_NOW keys of the tensor it copies
_DATA_FROM_CAP = [4096]  # its size at which the dead are dropped
_DATA_OUTS = (torch.Tensor, torch.nn.Parameter, tuple, list)
# Operations that make new values from no tensor at each call: random
# numbers, and your data turned into a tensor.
_NEW_VALUES = {
    "randn", "rand", "randint", "randperm", "normal", "bernoulli",
    "multinomial", "poisson", "tensor", "as_tensor", "from_numpy",
    "frombuffer", "empty", "asarray", "Tensor", "FloatTensor",
    "LongTensor",
}  # fmt: skip
_GRADDED = {}  # the parameters that had a .grad at a step (weakly)
_STALE = []  # (cut, _CutParameter): a value read when stale
_MIXED = {}  # tensor: True, made without a graph from data and cuts
# The reentrant checkpoint forwards running now: each, the cuts its
# arguments came through (a value it reads from outside is no argument).
_RECOMPUTED = []


class _Cut:
    """A value cut from its graph by detach(), .data, or an operation
    under no_grad on a tensor with a graph: where, weak references to
    the leaves whose graph was cut there, the event number then, and
    the optimizer steps (by count) in whose backward it was read."""

    __slots__ = (
        "site", "how", "params", "number", "step", "steps", "fresh",
        "checkpointed", "names", "weights_only", "sources", "ran",
        "computed", "entered", "carried",
    )  # fmt: skip

    def __init__(self, site, how, params):
        self.site, self.how, self.params = site, how, params
        self.number, self.step, self.steps = _COUNT[0], _STEPS[0], set()
        # The _CutParameters with a gradient at a step that read it:
        # they reach the loss by a fresh path too.
        self.fresh = set()
        self.checkpointed = False  # read in a reentrant checkpoint
        self.names = None  # id: name of its leaves, once a loss adds it
        self.weights_only = False  # made from parameters, no data
        self.sources = frozenset()  # then: the nodes it was cut from
        self.ran = False  # a loss a backward had started from
        # Made from weights alone by more than a copy or a new shape
        # (an anchor of the weights is meant to stay old).
        self.computed = False
        # Taken in by an operation with a graph before any data joined.
        self.entered = False
        # The last backward that had run the node it was cut from: a
        # state carried from a step whose loss went through it.
        self.carried = None


class _CutParameter:
    """A leaf that a backward's loss reached through a cut value: the
    first such cut, its name, the steps of its optimizers since (and
    how many gave it a gradient), its version after the last, and
    whether it is frozen on purpose (requires_grad off) or written by
    anything but a step (an average kept by hand: a teacher's)."""

    def __init__(self, param, cut, name):
        self.ref, self.cut, self.name = weakref.ref(param), cut, name
        self.steps, self.version, self.meant = 0, None, False
        self.print = None  # its sum and norm after the last step
        # Trained before, by a step: then only a value cut once and
        # read at several steps froze it (not a carried state).
        self.before, self.got = _holds(_GRADDED, param), 0


def _tensors_in(args, kwargs):
    for a in (*args, *kwargs.values()):
        if isinstance(a, torch.Tensor):
            yield a
        elif isinstance(a, (list, tuple)):
            yield from (b for b in a if isinstance(b, torch.Tensor))


def _cut(func, args, kwargs, out, before=None):
    """An output of a cut gets a new record; an output computed from
    cut values, their records. `before`: the leaves under a tensor
    that detach_() cut in place."""
    ins = list(_tensors_in(args, kwargs))
    if not ins:
        return
    records = [r for t in ins for r in (_get(_CUTS, t) or ())]
    how = (
        f"{func.__name__}()"
        if func in _DETACHES
        else ".data"
        if getattr(func, "__self__", None) is _DATA
        else "inference_mode"
        if torch.is_inference_mode_enabled()
        else "no_grad"
        # A reentrant checkpoint's forward runs under no_grad, and its
        # backward runs it again with a graph: no cut.
        if not torch.is_grad_enabled() and not _RECOMPUTED
        else None
    )
    if not how:
        _quietly(_carry_cut_term, func, ins, out)
    graphed = [t for t in ins if t.requires_grad] if how else ()
    leaves = before or (graphed and _leaves_of(graphed))
    if leaves:
        # A new cut stands for the earlier steps' cuts its inputs came
        # through (a state carried and detached at each step is read
        # once after each cut, not at every step since the first), and
        # takes in this step's (the layers of one no_grad forward).
        step = _STEPS[0]
        now = [x for r in records if r.step == step for x in r.params]
        leaves = tuple({id(r()): r for r in (*leaves, *now)}.values())
        records = [_new_cut(how, leaves, func, ins, graphed)]
    if not records:
        return
    if not leaves:
        _quietly(_carry_mixed, func, ins, out)
        records = _quietly(_fold, func, ins, records) or records
    records = _newest_cuts(tuple(dict.fromkeys(records)))
    for r in records if _RECOMPUTED else ():
        r.checkpointed = r.checkpointed or r not in _RECOMPUTED[-1]
    if func is _SETITEM:  # buf[i] = value: buf holds it now (a rollout)
        out = args[0]
    outs = (out,) if isinstance(out, torch.Tensor) else out
    for o in outs if isinstance(outs, (list, tuple)) else ():
        # A parameter written in place (an init, an average) is not a
        # value cut from it.
        if isinstance(o, torch.Tensor) and not (
            o.is_leaf
            and (o.requires_grad or isinstance(o, torch.nn.Parameter))
        ):
            _put(_CUTS, o, records)


def _newest_cuts(records, most=8):
    """At most `most` records, the newest: past that, first the newest
    of each set of weights (a rollout's buffer written at each of its
    steps holds one cut per step, which would push another network's
    out of a loss that reads both)."""
    if len(records) > most:
        newest = {}
        for r in records:
            key = frozenset(id(x()) for x in r.params)
            newest.pop(key, None)
            newest[key] = r
        records = tuple(newest.values())
    return records[-most:]


def _new_cut(how, leaves, func, ins, graphed):
    """A cut's record: whether a backward had started from the value
    cut, and the nodes it was made by if made from weights alone."""
    cut = _Cut(_site(), how, leaves)
    made = graphed[0].grad_fn if graphed else None
    cut.ran = bool(made and made.metadata.get(ROOT))
    cut.carried = made and _ran_below(made)
    # A saved tensor a backward freed reads as unknown: not weights.
    sources = _quietly(_weights_only, func, ins, graphed)
    cut.weights_only = sources is not None
    cut.sources = sources or frozenset()
    cut.computed = cut.weights_only and (
        any(_name(n) not in _COPY_NODES for n in cut.sources)
        if func in _DETACHES
        else _op_name(func) not in _COPY_OPS
        or any(r.computed for t in ins for r in _get(_CUTS, t) or ())
    )
    return cut


def _ran_below(node, most=64):
    """The last backward that ran this node, or the nearest nodes
    below it (an output no loss read, such as an RNN's last state,
    sits on nodes one did), None if none did."""
    todo, seen = deque([node]), {node}
    while todo and len(seen) <= most:
        n = todo.popleft()
        ran = n.metadata.get(RAN)
        if ran:
            return ran[-1]
        for c in _children(n):
            if c not in seen and not _is_leaf(c):
                seen.add(c)
                todo.append(c)
    return None


def _fold(func, ins, records):
    """The records of what an operation without a graph makes from cut
    values: an older cut taken in beside one of this step from the same
    leaves is not carried to the result, as new as its newest part (a
    running average); a value computed from a view of the weights (a
    .data or detach() alias follows them) is a value of the weights
    now: a new record stands for the views."""
    if any(t.requires_grad for t in ins):
        return None
    step = _STEPS[0]
    now = {
        id(p)
        for r in records
        if r.step == step
        for x in r.params
        if (p := x()) is not None
    }
    records = tuple(
        r
        for r in records
        if r.step == step or not all(id(x()) in now for x in r.params)
    )
    name = _op_name(func)
    views = [r for r in records if r.weights_only and not r.computed]
    # An in-place operation writes the view: still an alias.
    if not views or name in _COPY_OPS or name.endswith("_"):
        return records
    if any(_mixed(t) for t in ins):
        return records
    cut = _Cut(_site(), views[0].how, _union(r.params for r in views))
    cut.weights_only, cut.computed = True, True
    cut.sources = frozenset().union(*(r.sources for r in views))
    return (*(r for r in records if r not in views), cut)


def _union(refs):
    """Weak references to leaves, each leaf once."""
    found = {}
    for r in (r for group in refs for r in group):
        found.setdefault(id(r()), r)
    return tuple(found.values())


# What copies weights or gives them a new shape: a value made by these
# alone is a snapshot of the weights (an anchor), not computed from
# them.
_COPY_OPS = {
    "clone", "view", "reshape", "flatten", "cat", "stack", "t",
    "transpose", "permute", "squeeze", "unsqueeze", "contiguous",
    "to", "cpu", "float", "double", "half", "detach", "__getitem__",
    "copy_", "__get__", "expand", "view_as", "reshape_as",
}  # fmt: skip
_COPY_NODES = {
    "CloneBackward0", "ViewBackward0", "UnsafeViewBackward0",
    "ReshapeAliasBackward0", "CatBackward0", "StackBackward0",
    "TBackward0", "TransposeBackward0", "PermuteBackward0",
    "SqueezeBackward0", "SqueezeBackward1", "SqueezeBackward2",
    "UnsqueezeBackward0", "ToCopyBackward0", "SelectBackward0",
    "SliceBackward0", "ExpandBackward0", "AliasBackward0",
}  # fmt: skip


def _carry_mixed(func, ins, out):
    """Note the cuts whose values an operation with a graph takes in
    before data joined them (a weight norm the weights are divided by,
    not log-probabilities a rollout made under no_grad), and mark what
    an operation without a graph makes from data and cut values."""
    plain = [t for t in ins if not t.requires_grad]
    if len(plain) < len(ins):
        most = max(t.numel() for t in ins if t.requires_grad)
        for t in plain:
            # Compared with a value made now (a norm against the first
            # one's): a reference, meant to stay old; but a smaller
            # value in a subtraction with it (a mean) centres it.
            compared = _op_name(func) in _COMPARES and not (
                _op_name(func) in _SUBTRACTS and 1 < t.numel() < most
            )
            kept = compared or _mixed(t)
            for r in () if kept else _get(_CUTS, t) or ():
                r.entered = True
        return
    if any(_mixed(t) for t in plain):
        outs = pytree.tree_leaves(out)
        for o in (o for o in outs if isinstance(o, torch.Tensor)):
            _put(_MIXED, o, True)


def _mixed(t):
    """True if a tensor without a graph holds data: made from data, or
    data itself (more than a number, and cut from no weights)."""
    recs = _get(_CUTS, t)
    return bool(_get(_MIXED, t)) or (
        t.numel() > 1
        and not (recs and all(r.weights_only for r in recs))
    )


def _op_name(func):
    return getattr(func, "__name__", "")


# Operations that compare two values: a value cut once and compared
# with one made at each step is a reference (a target, an anchor).
_COMPARES = {
    "sub", "__sub__", "__rsub__", "rsub", "sub_", "mse_loss",
    "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div",
    "cross_entropy", "nll_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "cosine_similarity",
    "pairwise_distance", "dist", "cdist", "cosine_embedding_loss",
    "margin_ranking_loss", "triplet_margin_loss",
}  # fmt: skip
_SUBTRACTS = {"sub", "__sub__", "__rsub__", "rsub", "sub_"}
# The same, as the nodes a graph keeps of them.
_COMPARING_NODES = {
    "SubBackward0", "RsubBackward0", "RsubBackward1",
    "MseLossBackward0", "L1LossBackward0", "SmoothL1LossBackward0",
    "HuberLossBackward0", "KlDivBackward0",
    "BinaryCrossEntropyBackward0",
    "BinaryCrossEntropyWithLogitsBackward0", "NllLossBackward0",
    "CosineSimilarityBackward0", "DistBackward0", "CdistBackward0",
    "PdistBackward0",
}  # fmt: skip


# What keeps a term a constant added to the loss: a sum, a multiple
# by a constant, a reduction, a new shape.
_KEEP_TERM = _SUMS | {
    "mul", "__mul__", "__rmul__", "div", "__truediv__", "neg",
    "__neg__", "mean", "sum", "squeeze", "reshape", "view",
}  # fmt: skip


def _carry_cut_term(func, ins, out):
    """Mark a sum that takes in, beside a value with a graph, a number
    cut from the weights alone, and what only sums and constant
    multiples make from it."""
    name = _op_name(func)
    graphed = [t for t in ins if t.requires_grad]
    if not (
        isinstance(out, torch.Tensor)
        and out.requires_grad
        and name in _KEEP_TERM
    ):
        return
    mark = next((m for t in ins if (m := _get(_CUT_TERMS, t))), None)
    if mark and (name in _SUMS or len(graphed) == 1):
        _put(_CUT_TERMS, out, mark)
        return
    terms = [
        c
        for t in ins
        if not t.requires_grad and t.numel() == 1
        for c in _get(_CUTS, t) or ()
        # A gradient's term: gradient-term-adds-nothing says it. A loss
        # backpropagated already, added for a log, trained its share.
        if c.weights_only and c.how != _GRAD_CUT and not c.ran
    ]
    if (
        name in _SUMS
        and terms
        and any(not t.is_leaf for t in graphed)
        and not _feeds(terms[-1].sources, graphed)
    ):
        _put(_CUT_TERMS, out, (terms[-1], _site()))


# Operations whose input without a graph may be a number (a scalar
# multiple, an added constant) rather than data.
_SCALAR_OPS = {
    "AddBackward0", "SubBackward0", "MulBackward0", "DivBackward0",
    "RsubBackward1", "PowBackward0",
}  # fmt: skip


def _weights_only(func, ins, graphed, most=256):
    """The nodes (not leaves) a cut value was made by, if it was made
    from parameters alone, else None: no data in it (a statistic of
    the activations, a shift of a logsumexp, a teacher's output are
    data's). Under no_grad or .data: each input a parameter, a number,
    or itself made from parameters alone; cut from a graph: no
    operation in it took in a tensor of data."""
    if func not in _DETACHES:
        made = []
        for t in ins:
            recs = _get(_CUTS, t) or ()
            if (
                (t.is_leaf and t.requires_grad)
                or t.numel() == 1
                or _in_order(t)
            ):
                continue
            if not recs or not all(r.weights_only for r in recs):
                return None
            made += [r.sources for r in recs]
        return frozenset().union(*made)
    todo = [t.grad_fn for t in graphed if t.grad_fn is not None]
    seen = set()
    while todo:
        node = todo.pop()
        if node in seen:
            continue
        seen.add(node)
        if len(seen) > most or not _no_data(node):
            return None
        todo += [c for c, _ in node.next_functions if c is not None]
    return (
        frozenset(n for n in seen if not _is_leaf(n)) if seen else None
    )


def _in_order(index):
    """True for an index that picks rows in order (positions 0, 1, 2,
    ...): fixed rows, not rows that data picks."""
    if index.is_floating_point() or index.dtype == torch.bool:
        return False
    if index.dim() == 0 or index.is_complex():
        return False
    n = index.shape[-1]
    if n == 0 or index.numel() > 1 << 16:
        return False
    order = torch.arange(n, device=index.device)
    return bool((index.reshape(-1, n) == order).all())


def _feeds(sources, tensors, most=2048):
    """True if a graph behind the tensors holds one of the nodes a cut
    value was made by (a straight-through estimator's correction, added
    to the value it was cut from), or is too large to tell."""
    if not sources:
        return False
    todo = [t.grad_fn for t in tensors if t.grad_fn is not None]
    seen = set()
    while todo:
        node = todo.pop()
        if node in seen or _is_leaf(node):
            continue
        if node in sources or len(seen) > most:
            return True
        seen.add(node)
        todo += [c for c, _ in node.next_functions if c is not None]
    return False


def _no_data(node):
    """True if every input of the node without a graph is a number."""
    if all(c is not None for c, _ in node.next_functions):
        return True
    if _name(node) not in _SCALAR_OPS:
        return False
    saved = (
        getattr(node, f"_saved_{k}", None) for k in ("self", "other")
    )
    return all(
        not isinstance(t, torch.Tensor)
        or t.numel() == 1
        or t.requires_grad
        for t in saved
    )


def _note_cuts(call, tensors):
    """The cuts the tensors a backward() starts from read, and the
    constant term cut from a graph that one of them adds."""
    call.cuts = tuple(
        dict.fromkeys(c for t in tensors for c in _get(_CUTS, t) or ())
    )
    call.cut_term = next(
        (m for t in tensors if (m := _get(_CUT_TERMS, t))), None
    )
    _CUT_TERMS.clear()


# --- a detach() whose result nothing read -----------------------------

# id(a value detach() returned to your code): [a weakref to it, the
# detach's site (None once its reads are no longer watched), whether an
# operation took it in since, its line, whether a check noted it, the
# last backward call that ran through it]
_DETACHED = {}
# The output a detach() of yours was called on, as (its node's
# sequence number and kind, its output number), for each whose result
# died unread while watched: its line. A verdict finds it in a failing
# graph without holding the graph.
_DIED_UNREAD = {}
# (a call that ran through such an output, the line, whether cut there
# that call's loss keeps every leaf it reached, the node): a verdict
# reads the call that freed the graph, and what lies below that node.
_RAN_UNREAD = deque(maxlen=16)
# (the detach's site, the backward or grad() call that then ran through
# the graph it was to cut, the line): its result died unread.
_DETACH_UNUSED = deque(maxlen=64)
# The lines (file, number) of your detach() calls whose result, at any
# pass, an operation took in: a state rebound in a loop is read at one.
_DETACH_READ = set()
# What reading a tensor's flags is: no use of its value.
_FLAGS = {"requires_grad", "grad", "grad_fn", "is_leaf", "_version"}


def _watch_detached(args, out):
    """A detach() of your code, on a tensor with a graph: note whether
    its result is read; a backward through that graph after the result
    died unread ran where the detach was meant to cut (`x.detach()` as
    a statement, a loop variable rebound to it)."""
    source = args[0] if args else None
    if getattr(source, "grad_fn", None) is None:
        return
    site = _site()
    # Called by your own line: not by torch's or a library's code.
    frames = [f for f in _frames(site) if not _is_here(f[0])]
    if not frames or _is_library(frames[-1][0]):
        return
    node = source.grad_fn
    key = (_node_key(node), source.output_nr)
    entry = [None, site, False, tuple(frames[-1][:2]), 0, None]

    def died(ref):
        if entry[1] is not None and not entry[2]:
            _DIED_UNREAD[key] = entry[3]
            if len(_DIED_UNREAD) > 256:
                del _DIED_UNREAD[next(iter(_DIED_UNREAD))]

    entry[0] = weakref.ref(out, died)
    _DETACHED[id(out)] = entry

    def ran_through(grad_outputs):
        if entry[1] is None or entry[0]() is not None or entry[2]:
            return
        running = _CALLING[-1] if _CALLING else None
        if not entry[4]:  # a check notes it once
            _DETACH_UNUSED.append((entry[1], running, entry[3]))
            entry[4] = 1
        if running is not None and entry[5] is not running:
            entry[5] = running
            kept = _cut_at(_ROOTS_NOW[-1], {key}) == key
            here = torch._C._current_autograd_node()
            _RAN_UNREAD.append((running, entry[3], kept, here))

    node.register_prehook(ran_through)


def _node_key(node):
    """A node's sequence number and kind: which node it is, while its
    graph lives, without holding it."""
    return node._sequence_nr(), _name(node)


def _leaves_without(roots, cut=None, most=20000, old=()):
    """The ids of the leaves the graph behind `roots` reaches on paths
    that avoid the output `cut` (a key as _DIED_UNREAD's), and the keys
    of _DIED_UNREAD's outputs it met (None: it met a node of `old`)."""
    leaves, met = set(), set()
    seen, todo = set(roots), list(roots)
    while todo and len(seen) < most:
        node = todo.pop()
        if node in old:
            met.add(None)
        variable = getattr(node, "variable", None)
        if variable is not None:
            leaves.add(id(variable))
        for child, nr in node.next_functions:
            if child is None:
                continue
            key = (_node_key(child), nr)
            if key in _DIED_UNREAD or key == cut:
                met.add(key)
                if key == cut:
                    continue
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return leaves, met


def _cut_at(roots, keys, old=()):
    """Of the outputs `keys`, the first this graph reaches and that,
    detached, leaves it every leaf it reaches (the loss still trains
    all it trained), a cut that freezes nothing, and no node of `old`
    (the nodes an earlier backward freed: the cut ends the reuse)."""
    every, met = _leaves_without(roots)
    for key in keys:
        if key not in met:
            continue
        left, after = _leaves_without(roots, key, old=old)
        if left and left == every and None not in after:
            return key
    return None


def _below(node, targets, most=20000):
    """True if one of the nodes `targets` is `node` or lies below it."""
    seen, todo = {node}, [node]
    while todo and len(seen) < most:
        n = todo.pop()
        if n in targets:
            return True
        for child in _children(n):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return False


def _note_data(func, args, kwargs, out):
    """Note the tensors with no graph an operation took in beside one
    (a batch, a target, a mask) where its output has a graph, each by
    what it was made from (y.view(-1).long() is y again, at each step):
    a forward that reads only what the one before read repeats it (the
    same batch, a new pass over the same data)."""
    first = out[0] if type(out) in (tuple, list) and out else out
    if not isinstance(first, torch.Tensor):
        return
    given = [
        t
        for a in (*args, *kwargs.values())
        for t in (a if type(a) in (tuple, list) else (a,))
        if isinstance(t, torch.Tensor)
    ]
    ins = [t for t in given if not t.requires_grad]
    if first.grad_fn is not None:
        # A value cut from a graph (a state detached) is no data; one
        # taken in beside data is noted.
        cuts = [_get(_CUTS, t) for t in ins] if _CUTS else ()
        if any(cuts):
            ins = [t for t, c in zip(ins, cuts) if not c]
            met = (r for c in cuts for r in c or ()) if ins else ()
            _MET_CUTS.update(dict.fromkeys(met))
        for t in ins:
            _DATA_NOW.update(_data_keys(t))
        # The oldest node whose output met data here (h = rnn(x, h), a
        # cell on torch.cat([x, h])).
        for t in given if ins else ():
            if t.grad_fn is not None:
                _MET_NOW[0] = min(_MET_NOW[0], t.grad_fn._sequence_nr())
    elif (
        not first.requires_grad
        and first._base is None  # a view: keyed by where it starts
        and len(ins) == len(given)  # from weights: not data
        and all(first is not t for t in ins)  # in place: a new version
        and (ins or _op_name(func) not in _NEW_VALUES)
    ):
        if len(_DATA_FROM) > _DATA_FROM_CAP[0]:  # a run with no step
            for key in [
                k for k, (r, _) in _DATA_FROM.items() if r() is None
            ]:
                del _DATA_FROM[key]
            _DATA_FROM_CAP[0] = max(4096, 2 * len(_DATA_FROM))
        _put(_DATA_FROM, first, _made_keys(func, args, kwargs, first))


def _made_keys(func, args, kwargs, out):
    """The keys of a tensor with no graph an operation made: those of
    the tensors it was made from (x[perm] is x and perm, y.long() is
    y), or, from no tensor, the call's (the same zeros at each step)."""
    made = {}
    for a in (*args, *kwargs.values()):
        for t in a if type(a) in (tuple, list) else (a,):
            if isinstance(t, torch.Tensor):
                made.update(_data_keys(t))
    if made:
        return made
    numbers = tuple(
        a
        for a in (*args, *kwargs.values())
        if type(a) in (int, float, bool, torch.dtype)
    )
    return {(_op_name(func), numbers, out.shape, out.dtype): _forever}


def _forever():
    """What a key made from no tensor lives by: itself, always."""
    return _forever


def _data_keys(t):
    """A tensor with no graph as a key of _DATA_NOW: {key: a weakref
    that lives while the data does}. By what an operation made it from
    (_DATA_FROM), or by itself: the tensor it views, where it starts,
    its version, its shape."""
    made = _get(_DATA_FROM, t)
    if made is not None:
        return made
    base = t if t._base is None else t._base
    return {
        (id(base), t.data_ptr(), t._version, t.shape): weakref.ref(base)
    }


def same_data(before, now):
    """True if the forward before call `now` took in, with no graph,
    only tensors the forward before call `before` took in, the same
    ones, unchanged (and some), and one operation took in data beside
    a value made before `before` began: a state read again with the
    inputs it already passed (h = rnn(x, h), x the same batch)."""
    read = _DATA_OF.get(id(now))
    return (
        bool(read and before.seq is not None)
        and read[1] < before.seq
        and _same_inputs(_DATA_OF.get(id(before)), read)
    )


def _same_inputs(then, read):
    """True if the data of `read` (a _DATA_OF entry) is some, and all
    of it was in `then`, the same tensors, alive."""
    return bool(then and read and read[0]) and all(
        k in then[0]
        and then[0][k]() is not None
        and then[0][k]() is r()
        for k, r in read[0].items()
    )


def _note_same_pass(call):
    """Note a state cut from a graph an earlier backward ran (detached
    so that the program runs), taken in beside data by the forward this
    call runs back through, where that forward takes in only what the
    forward before that backward took in: the state carries the last
    pass into a new pass over the same data."""
    entry = _DATA_OF.get(id(call))
    for cut in entry[2] if entry else ():
        if (
            cut.carried is not None
            and not cut.weights_only
            and _same_inputs(_DATA_OF.get(id(cut.carried)), entry)
        ):
            _SAME_PASS.append((cut, call))
            return


def _read_detached(func, args, kwargs):
    """Note the values detach() returned that an operation took in."""
    about = getattr(getattr(func, "__self__", None), "__name__", None)
    if about in _FLAGS or _op_name(func) == "requires_grad_":
        return
    for t in _tensors_in(args, kwargs or {}):
        entry = _DETACHED.get(id(t))
        if entry is not None and entry[0]() is t:
            entry[2] = True
            _DETACH_READ.add(entry[3])


def _cut_by_grad(tensors, grads):
    """Gradients grad() handed back without create_graph=True have no
    graph: values cut from every leaf of the graph they were taken
    from (a first-order inner step's fast weights: what made that loss
    reaches the outer one only through them)."""
    grads = [g for g in grads if g is not None]
    graphed = [t for t in tensors if t.requires_grad]
    if not (_CUTTING[0] and grads and graphed):
        return
    # A check must never become the program's error.
    with contextlib.suppress(Exception):
        leaves = _leaves_of(graphed)
        if leaves:
            records = [_Cut(_site(), _GRAD_CUT, leaves)]
            for g in grads:
                _put(_CUTS, g, records)


_GRAD_CUT = "autograd.grad() without create_graph=True"

# The wrapper once_differentiable puts around a backward: one code
# object for every Function it decorates.
_ONCE = once_differentiable(lambda ctx: None).__code__
_ONCE_FOUND = deque(maxlen=256)  # (the decorated backward, site)


def _once_at_root(roots, inputs, grads, site):
    """A grad() of your code with create_graph=True that handed back a
    gradient with no graph, where a @once_differentiable backward ran
    on a way to that input: it runs under no_grad, and marks its
    result only where the gradient it is given has a graph, which at
    the root of the graph (or below operations whose gradient is a
    constant) it has not."""
    lost = [
        t
        for t, g in zip(inputs, grads)
        if g is not None and not g.requires_grad
    ]
    if not lost or _caller(_frames(site)) is not None:
        return
    with contextlib.suppress(Exception):  # never the program's error
        edge = torch.autograd.graph.get_gradient_edge
        for node in _ran_by(roots, [edge(t).node for t in lost], False):
            backward = _once_backward(node)
            if backward is not None:
                _ONCE_FOUND.append((backward, site))
                return


def _once_backward(node):
    """The backward a @once_differentiable marks, for a custom
    Function's node (under other decorators too: custom_bwd's)."""
    fn = getattr(getattr(node, "_forward_cls", None), "backward", None)
    for _ in range(8):
        if fn is None or getattr(fn, "__code__", None) is _ONCE:
            return getattr(fn, "__wrapped__", None)
        fn = getattr(fn, "__wrapped__", None)
    return None


def _leaves_of(tensors, most=20000):
    """Weak references to the leaves with a graph (parameters) that
    these tensors are, or are computed from."""
    found = {}
    for t in tensors:
        try:
            node = t.grad_fn
        except RuntimeError:  # a view made under no_grad, then changed
            continue
        if node is None:
            # A view made under no_grad is a leaf of its own: its base
            # is the parameter.
            while t._base is not None and t._base.requires_grad:
                t = t._base
            found[id(t)] = weakref.ref(t)
            continue
        if node not in _SOURCES:
            leaves, seen, todo = {}, {node}, [node]
            while todo and len(seen) < most:
                n = todo.pop()
                variable = getattr(n, "variable", None)
                if variable is not None:
                    leaves[id(variable)] = weakref.ref(variable)
                for child, _ in n.next_functions:
                    if child is not None and child not in seen:
                        seen.add(child)
                        todo.append(child)
            _SOURCES[node] = leaves
        found.update(_SOURCES[node])
    return tuple(found.values())


def _read_cuts(tensors, reporter):
    """A backward of these tensors: note the cut values they were
    computed from, and the leaves cut from them there."""
    new = {}
    for t in tensors:
        for cut in _get(_CUTS, t) or ():
            cut.steps.add(_STEPS[0])
            _READ_NOW.append(cut)
            for ref in cut.params:
                p = ref()
                if p is not None and id(p) not in _CUT_PARAMS:
                    new.setdefault(id(p), (p, cut))
    if new:
        names = reporter.names({i: p for i, (p, _) in new.items()})
        for i, (p, cut) in new.items():
            _CUT_PARAMS[i] = _CutParameter(p, cut, names.get(i))


def _step_cuts(params, grads):
    """After an optimizer's step: count it for the leaves reached
    through cuts that it owns. A cut value read in two steps or more,
    made before a step changed a leaf cut from it, is stale where that
    leaf got no gradient at any step that read it (it reached the
    loss only through it: not a layer idle at this step)."""
    read = dict.fromkeys(_READ_NOW)
    for p in params:
        c = _CUT_PARAMS.get(id(p))
        if c is None or c.ref() is not p:
            continue
        # A meta tensor has no values to read: counted as a gradient.
        got = id(p) in grads and (p.is_meta or bool(p.grad.any()))
        # Written by anything but a step (through .data too: no version
        # moves), or frozen: on purpose.
        written = not got and written_since(c)
        c.meant = c.meant or written or not p.requires_grad
        c.steps, c.version, c.print = c.steps + 1, p._version, _print(p)
        c.got += got
        cuts = [x for x in read if any(r() is p for r in x.params)]
        for cut in cuts:
            # A value computed from the weights alone is stale by value
            # even where they reach the loss by a fresh path too.
            if cut.computed and got:
                cut.computed = cut.entered and _cut_by_you(cut.site)
            if got and not cut.computed:
                cut.fresh.add(c)
            elif len(cut.steps) > 1 and _changed_after(p, cut.number):
                _STALE.append((cut, c))


def _cut_by_you(site):
    """True if your code made the cut, through torch's operations and
    layers: not a library's code, nor torch's own utilities (an
    orthogonal parametrization's base, a spectral norm's vectors)."""
    for path, _, _ in reversed(_frames(site)):
        if _is_here(path):
            continue
        if path.startswith(_TORCH_DIR):
            if path.startswith(_TORCH_UTILS):
                return False
            continue
        return not _is_library(path)
    return False


_TORCH_UTILS = (
    os.path.join(_TORCH_DIR, "nn", "utils"),
    os.path.join(_TORCH_DIR, "optim"),
)


def _print(p):
    """A parameter's sum and norm (a .data write moves no version)."""
    with torch.no_grad():
        values = p.detach().float()
        return torch.stack([values.sum(), values.norm()])


def written_since(c):
    """True if the leaf of a _CutParameter was written since its last
    step (by anything: a step that had no gradient for it writes
    nothing)."""
    p = c.ref()
    if p is None or c.version is None:
        return False
    moved = p._version != c.version
    return moved or not torch.equal(c.print, _print(p))


def _changed_after(param, number):
    return any(
        n > number and _holds(refs, param)
        for n, refs in _STEPPED_WITH_GRAD
    )


def _cuts_after_step():
    """Forget what one step's cuts needed; stop following cuts after
    the first CUT_STEPS steps."""
    _READ_NOW.clear()
    _SOURCES.clear()
    for key in [k for k, (r, _) in _DATA_FROM.items() if r() is None]:
        del _DATA_FROM[key]
    for key in [k for k, e in _DETACHED.items() if e[0]() is None]:
        del _DETACHED[key]
    for marks in (_CUTS, _MIXED):
        for key in [k for k, (r, _) in marks.items() if r() is None]:
            del marks[key]
    if _STEPS[0] >= CUT_STEPS:
        for entry in _DETACHED.values():
            entry[1] = None  # its reads are no longer watched
        _DETACHED.clear()
        _CUTTING[0] = False
        _CUTS.clear()
        _MIXED.clear()
        _DATA_FROM.clear()
        _CUT_TERMS.clear()


# --- a backward whose gradients no step used --------------------------

# id(leaf): [weakref, the id of its .grad after the last backward that
# wrote it, that .grad's _version then, the calls waiting on it, the
# steps passed when it began to wait] for each leaf a backward() wrote
# a gradient to that nothing has used or cleared since.
_WAITING = {}
_HELD = {}  # id(parameter): weakref, of the optimizers seen stepping
_PASSED = [0]  # the optimizer steps begun (counted once each is looked)
# The lines of your code (file, line) a backward ran from that had a
# gradient used; those whose runs' gradients were all cleared unused
# after a step: line: [how many runs, the first]; and whether a hook
# was registered (a hook may be what a backward is for: not watched).
_USED_LINES, _UNUSED = set(), {}
_HOOKED = [False]
# Whether your reads of .grad are watched (a read may be a use: a norm
# logged, a Fisher or SNIP pass): from the first call noted unused on,
# so a training loop that clears nothing unused never pays for it.
_READS = [False]
# The reporter's names(leaves), read while your variables are alive.
_NAMER = [None]
_PATIENCE = 8  # steps a held gradient may wait before nothing is known
_NONE = weakref.ref(_Call)  # a weak reference that is never a leaf


def _line_key():
    """(file, line) of your innermost frame: the line a backward ran
    from, read cheaply at each call."""
    frame = sys._getframe(2)
    while frame is not None and _is_library(frame.f_code.co_filename):
        frame = frame.f_back
    return frame and (frame.f_code.co_filename, frame.f_lineno)


def _wait(call, leaves):
    """After a backward(): the leaves it wrote a gradient to wait for a
    step, a read of your code's, or a write to use it."""
    held = False
    for leaf in leaves:
        grad = _GRAD.__get__(leaf)
        if grad is None or grad.is_inference():  # it has no version
            continue
        if _HELD.get(id(leaf), _NONE)() is not leaf:
            # No optimizer stepped it yet (a frozen network left with
            # requires_grad on, an input): this call is never judged.
            call.other += 1
            continue
        entry = _WAITING.get(id(leaf))
        if entry is None or entry[0]() is not leaf:
            entry = [weakref.ref(leaf), 0, 0, [], _PASSED[0]]
            _WAITING[id(leaf)] = entry
        entry[1:3] = id(grad), grad._version
        entry[3].append(call)
        call.waiting, held = call.waiting + 1, True
    call.since = _PASSED[0]
    if held and _READS[0] and not _compiled():
        torch.Tensor.grad = _READ_GRAD  # your reads use a gradient


def _look_waiting():
    """Before a backward() or a step, and before a report: a waiting
    gradient set to None or zeroed is cleared; one written otherwise
    (clipped, scaled by hand) counts as used."""
    for i, (ref, grad_id, version, _, _) in list(_WAITING.items()):
        leaf = ref()
        grad = None if leaf is None else _GRAD.__get__(leaf)
        if grad is not None and (
            grad.is_inference() or grad.device.type != "cpu"
        ):
            # No version (inference_mode), or a read of its values
            # would wait for the device (or has none: meta): used.
            _settle(i, used=True)
            continue
        if leaf is not None and grad is not None:
            if grad_id == id(grad) and grad._version == version:
                continue
            if grad.any():
                _settle(i, used=True)
                continue
        _settle(i, used=False, gone=leaf is None)


def _settle(i, used, gone=False):
    """The gradient of leaf `i` was used, or cleared (`gone`: the leaf
    died: nothing known); a call all of whose gradients were cleared
    unused, each after a step, is noted."""
    ref, _, _, calls, _ = _WAITING.pop(i)
    held = i in _HELD and _HELD[i]() is ref()
    for call in calls:
        call.waiting -= 1
        if used:
            call.used = True
            _USED_LINES.add(call.key)
        elif _PASSED[0] > call.since and held and not gone:
            call.lost += 1
        else:
            call.other += 1
        unused = not (call.used or call.other or _HOOKED[0])
        if call.waiting == 0 and unused:
            _note_unused(call)


def _note_unused(call):
    """Count a call whose gradients were all cleared unused, by its
    line, and name its leaves while your variables spell them."""
    seen = _UNUSED.get(call.key)
    if seen is not None:
        seen[0] += 1
        if call.cuts and not seen[1].cuts:  # cuts are followed early
            seen[1] = call
        return
    _UNUSED[call.key] = [1, call]
    _READS[0] = True
    if _NAMER[0] is not None:
        call.names = sorted(_NAMER[0](leaves_alive(call)).values())


def leaves_alive(call):
    """id: leaf, for the leaves alive that the call wrote to."""
    alive = [ref() for ref, _ in call.versions.values()]
    return {id(t): t for t in alive if t is not None}


def _quietly(fn, *args, **kwargs):
    """Run a check's bookkeeping: it must never become the program's
    error."""
    with contextlib.suppress(Exception):
        return fn(*args, **kwargs)


def _step_uses(optimizer):
    """A step of the optimizer is about to use its waiting gradients:
    which calls it applies (two optimizers or more), then settled."""
    if len(_OPTIMIZERS) > 1 and _WAITING:
        _quietly(_note_applied, optimizer)
    _use_stepped(_params(optimizer))


def _use_stepped(params, after=False):
    """An optimizer is about to step `params` (or has: a closure's
    backward ran inside the step): their waiting gradients are used;
    a step passes every other one."""
    with contextlib.suppress(Exception):  # never the program's error
        for p in params:
            i, held = id(p), _HELD.get(id(p))
            if held is None or held() is not p:
                _HELD[i] = weakref.ref(p)
            # One zeroed in place counts as used: fewer reads per step.
            if i in _WAITING and _GRAD.__get__(p) is not None:
                _settle(i, used=True)
        if _WAITING and not after:
            _pass_step()
        elif _WAITING and _READS[0] and not _compiled():
            torch.Tensor.grad = _READ_GRAD  # your reads use a gradient


def _pass_step():
    """A step begins: what it cleared before is looked at first; a
    gradient no optimizer holds, or held that waited past _PATIENCE
    steps, is settled (nothing known: a frozen network's .grad that
    nobody clears must not grow a list at every step)."""
    _look_waiting()
    _PASSED[0] += 1
    for i, (ref, _, _, _, since) in list(_WAITING.items()):
        held = i in _HELD and _HELD[i]() is ref()
        if not held or _PASSED[0] - since > _PATIENCE:
            _settle(i, used=False, gone=True)


# --- a loss's gradient stepped by another model's optimizer ----------

# Where two optimizers or more step, each backward() is for the model
# of the optimizers zeroed before it and stepped after it; a gradient it
# wrote that another optimizer stepped with went to the other model.
_OPTIMIZERS = {}  # id(optimizer): (weakref, how many parameters)
_OPT_OF = {}  # id(parameter): the ids of the optimizers holding it
_ZEROED_NOW = [set()]  # optimizers zeroed since the last backward()
# The last backward(): optimizers stepping count for it.
_OWNING = [None]
# The calls another optimizer stepped with, and those a clear dropped.
_APPLIED, _DROPPED = deque(maxlen=256), deque(maxlen=256)
# (line, id(optimizer)): the names of the parameters it stepped with a
# gradient of that line's backward(), read while your variables live.
_APPLIED_NAMES = {}
# id(parameter): (weakrefs to it and its .grad, a copy of that, the
# calls that wrote it, the optimizer holding it), taken when a
# backward() begins that would add to a gradient left there by calls
# another optimizer stepped after, read when it ends.
_HELD_COPIES = {}


def _own(call):
    """A backward() of yours begins: it is for the optimizers zeroed
    since the last one (and those stepping before the next); gradients
    it would add to, left by calls another optimizer stepped after, are
    copied first, to tell its part from theirs when it ends."""
    call.zeroed = frozenset(_ZEROED_NOW[0])
    call.stepped, call.applied, call.dropped = set(), {}, set()
    call.against = {}
    _ZEROED_NOW[0], _OWNING[0] = set(), call
    _HELD_COPIES.clear()
    if len(_OPTIMIZERS) < 2:
        return
    for i, (ref, _, _, calls, _) in _WAITING.items():
        holders, p = _OPT_OF.get(i, ()), ref()
        grad = None if p is None else _GRAD.__get__(p)
        if len(holders) != 1 or grad is None:
            continue
        (o,) = holders
        if all(c.stepped and o not in c.stepped for c in calls):
            with torch.no_grad():
                copy = grad.detach().clone()
            _HELD_COPIES[i] = (
                ref,
                weakref.ref(grad),
                copy,
                calls[:],
                o,
            )


def _compare_held():
    """A backward() ended: how the gradient it found, left by calls
    another optimizer stepped after, points against what it added (read
    now: a clip or an unscale before the step would scale both)."""
    for ref, held, early, calls, o in _HELD_COPIES.values():
        p = ref()
        grad = None if p is None else _GRAD.__get__(p)
        if grad is None or held() is not grad:
            continue
        with torch.no_grad():
            a, b = (
                early.double().flatten(),
                (grad - early).double().flatten(),
            )
            parts = [float(a @ b), float(a @ a), float(b @ b)]
        for call in calls:
            sums = call.against.setdefault(o, [0.0, 0.0, 0.0])
            sums[:] = [x + y for x, y in zip(sums, parts)]
    _HELD_COPIES.clear()


def _note_stepped(optimizer):
    """The optimizer stepped: it is for the last backward(); its
    parameters are mapped to it (again if a group was added)."""
    o = id(optimizer)
    if _OWNING[0] is not None:
        _OWNING[0].stepped.add(o)
    params = _params(optimizer)
    seen = _OPTIMIZERS.get(o)
    if (
        seen is None
        or seen[0]() is not optimizer
        or seen[1] != len(params)
    ):
        _OPTIMIZERS[o] = (weakref.ref(optimizer), len(params))
        for p in params:
            _OPT_OF.setdefault(id(p), set()).add(o)


def _note_applied(optimizer):
    """Before a step: the calls whose gradients it is about to use,
    and (once for each line) the parameters it steps with them."""
    o, now = id(optimizer), {}
    for p in _params(optimizer):
        entry = _WAITING.get(id(p))
        if (
            entry is None
            or entry[0]() is not p
            or _GRAD.__get__(p) is None
        ):
            continue
        alone = _OPT_OF.get(id(p)) == {o}
        for call in entry[3]:
            got = call.applied.get(o)
            if got is None:
                got = call.applied[o] = now[call] = []
                _APPLIED.append(call)
            if alone and len(got) < 8:
                got.append(weakref.ref(p))
    for call, got in now.items() if _NAMER[0] else ():
        if got and (call.key, o) not in _APPLIED_NAMES:
            leaves = {id(p): p for r in got if (p := r()) is not None}
            _APPLIED_NAMES[call.key, o] = sorted(
                _NAMER[0](leaves).values()
            )


def _note_zero(params, optimizer=None):
    """A zero_grad() of an optimizer, or of a module: the optimizers it
    clears are for the next backward(); a gradient it clears unused is
    dropped (settled now: the clear may write zeros)."""
    if optimizer is not None:
        _ZEROED_NOW[0].add(id(optimizer))
    if len(_OPTIMIZERS) < 2:
        return
    for p in params:
        holders = _OPT_OF.get(id(p), ())
        if optimizer is None:
            _ZEROED_NOW[0].update(holders)
        entry = _WAITING.get(id(p))
        if entry is None or entry[0]() is not p:
            continue
        for call in entry[3]:
            if not call.dropped:
                _DROPPED.append(call)
            call.dropped.update(holders)
        _settle(id(p), used=False)


def _zeroing(real, optimizer):
    """A zero_grad() that notes what it clears."""

    def zero_grad(self, *args, **kwargs):
        if optimizer:
            _quietly(_note_zero, _params(self), self)
        else:
            _quietly(_note_zero, self.parameters())
        return real(self, *args, **kwargs)

    # As torch's own: compiled code runs it eagerly, not traced.
    return torch._disable_dynamo(zero_grad)


def _watch_zeroing(stack):
    """Note optimizers' and modules' zero_grad() until `stack`
    closes."""
    for owner, optimizer in (
        (torch.optim.Optimizer, True),
        (torch.nn.Module, False),
    ):
        real = owner.zero_grad
        owner.zero_grad = _zeroing(real, optimizer)
        stack.callback(setattr, owner, "zero_grad", real)


def _hooking(real):
    """A hook registration that notes a hook was registered."""

    def register(*args, **kwargs):
        _HOOKED[0] = True
        return real(*args, **kwargs)

    return register


_HOOKS = (
    (torch.Tensor, "register_hook"),
    (torch.Tensor, "register_post_accumulate_grad_hook"),
    (torch.Tensor, "retain_grad"),
    (torch.nn.Module, "register_full_backward_hook"),
    (torch.nn.Module, "register_full_backward_pre_hook"),
    (torch.nn.Module, "register_backward_hook"),
)


def _watch_hooks(stack):
    """Note the backward hooks registered until `stack` closes."""
    import torch.nn.modules.module as modules

    _HOOKED[0] = False
    for owner, name in _HOOKS:
        own = name in owner.__dict__  # retain_grad is TensorBase's
        real = getattr(owner, name)
        setattr(owner, name, _hooking(real))
        if own:
            stack.callback(setattr, owner, name, real)
        else:
            stack.callback(delattr, owner, name)
    for name in dir(modules):
        if name.startswith("register_module") and "backward" in name:
            real = getattr(modules, name)
            setattr(modules, name, _hooking(real))
            stack.callback(setattr, modules, name, real)


def _compiled():
    """True once torch.compile has compiled a frame since watching
    began, or while it does."""
    return (
        torch.compiler.is_compiling() or _frames_compiled() > _SINCE[0]
    )


def _frames_compiled():
    dynamo = sys.modules.get("torch._dynamo.utils")
    return (
        sum(dynamo.counters.get("frames", {}).values()) if dynamo else 0
    )


_SINCE = [0]  # frames compiled before watching began


def _top_mode():
    modes = torch.overrides._get_current_function_mode_stack()
    return modes[-1] if modes else None


_MARKING = _Marking()


class StepsDone(BaseException):
    """The steps to watch are done: the command checks the run so far
    and stops it (a BaseException, so that no `except Exception` in the
    program catches it)."""


_STEPS = [0, None]  # optimizer steps watched, and where to stop


class _Stack:
    """The stack anomaly mode keeps for a node, taken as code objects
    and instruction offsets (torch's CapturedTraceback, no Python work
    per frame) and written out only when read: anomaly mode's message
    iterates it as the lines format_stack would give."""

    __slots__ = ("captured",)

    def __init__(self, captured):
        self.captured = captured

    def frames(self):
        """(file, line, function) of each frame, outermost first."""
        from torch._C._profiler import symbolize_tracebacks

        found = symbolize_tracebacks([self.captured])[0]
        return [(f["filename"], f["line"], f["name"]) for f in found][
            ::-1
        ]

    def copy(self):
        return [
            f'  File "{path}", line {line}, in {name}\n'
            for path, line, name in self.frames()
        ]

    def __iter__(self):
        return iter(self.copy())


try:  # torch's stack capture, in C++: frames written out when read
    from torch._C._profiler import gather_traceback as _GATHER
except ImportError:
    _GATHER = None


def _quick_stack(real):
    """torch.fx.traceback.format_stack, which anomaly mode calls for
    every node, taking the stack without reading it: reading each
    frame's source line, and writing every frame, were most of anomaly
    mode's cost on a model of small operations."""
    import torch.fx.traceback as fx_traceback

    def format_stack():
        if fx_traceback.should_preserve_node_meta or _GATHER is None:
            return real()
        return _Stack(_GATHER(python=True, script=False, cpp=False))

    return format_stack


def _hold_anomaly(real):
    """torch.set_anomaly_enabled that keeps the line records on: a
    framework that turns anomaly mode off (Lightning's Trainer does,
    around fit) would leave every node made after it unnamed."""

    def hold(enabled, check_nan=True):
        return real(True, check_nan if enabled else False)

    return hold


@contextlib.contextmanager
def recording(reporter):
    """Keep the records while the block runs. `reporter.freed(error,
    roots, site, outs)` is called when a backward or grad() call raises
    the error, `reporter.inplace(...)` when one raises the in-place
    error, and `reporter.rerun(call, roots)` when one runs again, stale
    or twice, a graph kept by retain_graph=True. Nested or repeated use
    is fine."""
    if _WATCHING:
        yield
        return
    grad = torch.autograd
    real = grad.backward, grad.grad
    real_tensor_backward = torch.Tensor.backward
    _WATCHING.append(True)
    _forget_runs()
    _CUTTING[0] = True
    try:
        with contextlib.ExitStack() as stack:
            grad.backward = _wrap(real[0], "backward()", reporter)
            grad.grad = _wrap(real[1], "autograd.grad()", reporter)
            torch.Tensor.backward = _pausing(real_tensor_backward)
            stack.callback(
                setattr, torch.Tensor, "backward", real_tensor_backward
            )
            hook = register_optimizer_step_post_hook(_after_step)
            stack.callback(hook.remove)
            # An optimizer's own work under no_grad cuts nothing.
            hook = register_optimizer_step_pre_hook(_before_step)
            stack.callback(hook.remove)
            _record_creation(stack)
            _watch_scaling(stack)
            _watch_checkpoints(stack)
            _watch_hooks(stack)
            _watch_zeroing(stack)
            _NAMER[0] = getattr(reporter, "names", None)
            _PASSED[0], _READS[0] = 0, False
            stack.callback(_NAMER.__setitem__, 0, None)
            _count_threads(stack)
            _MARKING.resume()
            yield
    finally:
        grad.backward, grad.grad = real
        _CUTTING[0] = False
        _MARKING.stop(())
        _WROTE.clear()
        _WATCHING.pop()


def _forget_runs():
    """The checks read this block's run only: forget earlier ones."""
    _SINCE[0] = _frames_compiled()
    _STEPS[0] = 0
    _MET_NOW[0] = math.inf
    for kept in (
        _FINDINGS, _STEPPED_WITH_GRAD, _UNDER_KEPT,
        _CUTS, _CUT_PARAMS, _READ_NOW, _GRADDED, _STALE, _MIXED,
        _SCALERS, _SCALER_OUTS, _CLIPS, _SCALED_FOUND,
        _RECOMPUTED_DIFFER, _ONCE_FOUND, _WAITING, _HELD, _UNUSED,
        _USED_LINES, _WROTE, _DETACHED, _DETACH_UNUSED, _DETACH_READ,
        _DIED_UNREAD, _RAN_UNREAD, _DATA_NOW, _DATA_OF, _DATA_FROM,
        _MET_CUTS, _SAME_PASS, _OPTIMIZERS, _OPT_OF, _APPLIED,
        _DROPPED, _APPLIED_NAMES, _HELD_COPIES,
    ):  # fmt: skip
        kept.clear()
    _ZEROED_NOW[0], _OWNING[0] = set(), None


def _watch_scaling(stack):
    """Watch GradScaler's scale, step and update, and the clips of
    .grad, until `stack` closes."""
    from torch.amp.grad_scaler import GradScaler
    from torch.nn.utils import clip_grad

    wraps = {"scale": _scaling, "step": _scaler_steps}
    wraps["update"] = _scaler_updates
    for name, wrap in wraps.items():
        real = GradScaler.__dict__[name]
        setattr(GradScaler, name, wrap(real))
        stack.callback(setattr, GradScaler, name, real)
    for how in _LIMITS:
        name = f"clip_grad_{how}_"
        real = getattr(clip_grad, name)
        for module in (clip_grad, torch.nn.utils):
            setattr(module, name, _clipping(real, how))
            stack.callback(setattr, module, name, real)


def _count_threads(stack):
    """Count the threads started until `stack` closes; note those
    alive before (a notebook's, an earlier program's in one process)."""
    _OTHERS.clear()
    _OTHERS.update(threading.enumerate())
    real = threading.Thread.start

    def start(self):
        _THREADS[0] += 1
        return real(self)

    threading.Thread.start = start
    stack.callback(setattr, threading.Thread, "start", real)


def _watch_checkpoints(stack):
    """Count the reentrant checkpoint forwards running, and fingerprint
    what the non-reentrant ones save, until `stack` closes."""
    from torch.utils import checkpoint
    from torch.utils.checkpoint import CheckpointFunction

    checks = checkpoint._allowed_determinism_checks_to_fns
    mode = checkpoint._DEFAULT_DETERMINISM_MODE
    if mode in checks:
        real = checks[mode]
        checks[mode] = _fingerprinting(real)
        stack.callback(checks.__setitem__, mode, real)

    real = CheckpointFunction.__dict__["forward"]

    def forward(*args):
        given = {r for t in args for r in _get(_CUTS, t) or ()}
        _RECOMPUTED.append(given)
        try:
            return real.__func__(*args)
        finally:
            _RECOMPUTED.pop()

    CheckpointFunction.forward = staticmethod(forward)
    stack.callback(setattr, CheckpointFunction, "forward", real)


# --- checkpoints: a recomputation that differs (checks of a run) ------

_RECOMPUTED_DIFFER = deque(maxlen=64)  # (site of the forward's op)


class _Saved(dict):
    """What a non-reentrant checkpoint notes of a tensor it saves:
    torch's own metadata (shape, dtype, device), compared as torch
    compares it, and, during the first optimizer steps, the values'
    sum, sum of magnitudes and norm, and where the forward saved it: a
    recomputation that saves other values is noted, not raised."""

    values = site = held = None

    def __ne__(self, other):
        differs = dict.__ne__(self, other)
        mine, theirs = self.values, getattr(other, "values", None)
        if self.held is not None and self.held() is not None:
            mine = None
        if not differs and mine is not None and theirs is not None:
            # Against the size of the values (their sum of magnitudes),
            # not each figure's own: a sum near zero moves with the
            # order of a reduction (on a GPU, atomics).
            with contextlib.suppress(Exception):
                scale = float(torch.maximum(mine[1], theirs[1])) or 1.0
                if float((mine - theirs).abs().max()) > 1e-4 * scale:
                    _RECOMPUTED_DIFFER.append(self.site)
        return differs


def _fingerprinting(real):
    def metadata(x):
        saved = _Saved(real(x))
        # A tensor with no graph that the forward saves as it is and
        # something outside the function still holds, a buffer, may be
        # written in place on purpose, no version moved (BatchNorm's
        # running statistics, which train mode saves and does not read):
        # not compared; what the function computed from it is. One it
        # made itself (a dropout mask) is gone by then. (The
        # recomputation's tensors are all detached: only the forward's
        # are told apart.)
        forward = sys._getframe(1).f_code.co_name == "pack_hook"
        if forward and x.is_leaf and not x.requires_grad:
            saved.held = weakref.ref(x)
        if _CUTTING[0] and (x.is_floating_point() or x.is_complex()):
            with contextlib.suppress(Exception):
                values = x.detach().double()
                saved.values = torch.stack(
                    [values.sum(), values.abs().sum(), values.norm()]
                )
                saved.site = _stack_here(1) if forward else None
        return saved

    return metadata


def _pausing(real):
    def backward(self, *args, **kwargs):
        _MARKING.pause()
        return real(self, *args, **kwargs)

    backward.__wrapped__ = real
    return backward


def _record_creation(stack):
    """Record where each node is made, until `stack` closes."""
    creation = getattr(torch.autograd.graph, "node_creation_hook", None)
    if creation is not None:
        stack.enter_context(creation(_on_node_created))
        return
    # Anomaly mode keeps each node's stack; its NaN check, a cost of
    # its own, is not needed.
    anomaly = (
        torch.is_anomaly_enabled(),
        torch.is_anomaly_check_nan_enabled(),
    )
    if not anomaly[0]:
        torch.set_anomaly_enabled(True, False)
    stack.callback(torch.set_anomaly_enabled, *anomaly)
    real_set = torch.set_anomaly_enabled
    torch.set_anomaly_enabled = _hold_anomaly(real_set)
    import torch.fx.traceback as fx_traceback

    real_stack = fx_traceback.format_stack
    fx_traceback.format_stack = _quick_stack(real_stack)
    stack.callback(setattr, fx_traceback, "format_stack", real_stack)
    stack.callback(setattr, torch, "set_anomaly_enabled", real_set)
    # Its warning shows one node's stack; the report, more. A node made
    # by a backward with create_graph=True warns with the stack of the
    # one that made it: the command's frames, not your error.
    stack.enter_context(warnings.catch_warnings())
    warnings.filterwarnings("ignore", "Error detected in ")
    warnings.filterwarnings(
        "ignore", r"\s*Previous calculation was induced by "
    )
