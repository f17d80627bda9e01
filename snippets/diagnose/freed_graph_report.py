"""freed_graph_report.py: when "Trying to backward through the graph a
second time" is raised, name the value that reuses a freed graph, where
your program keeps it, the backward that freed it, and the fix the
measured facts point to (or two, and the question that decides).

    python freed_graph_report.py your_script.py [its arguments]

runs your script unchanged, as `python your_script.py` would. In a
notebook cell or a script, `with watch():` around the code does the
same. When the error is raised, the report is printed and its last
lines (the fix and the page that explains it) are added to the error,
which is raised as before. `report_freed(loss)`, called before a
backward, prints the same report without waiting for the error.

Plain PyTorch, one file. It records where each graph node was made
(anomaly mode before torch 2.14, held on while it watches, and
torch.autograd.graph's node_creation_hook from 2.14 on), which nodes
each backward ran, who called it, and the leaves' versions and values.
The verdict is a reading of five measured facts (order, holder,
staleness, ownership, caller): one fix when they exclude the others,
else two, each with the question that decides. The `see:` address
explains its rules.
"""

import contextlib
import functools
import linecache
import os
import re
import runpy
import sys
import sysconfig
import types
import warnings
import weakref
from collections import deque

import torch
from torch.optim.optimizer import register_optimizer_step_post_hook

SITE = "https://backward-twice.github.io/"
MESSAGE = "Trying to backward through the graph a second time"
MADE, RAN, ROOT = "report.made", "report.ran", "report.root"
# Frames in these files are library code; the lines to show are yours.
_LIBRARY = (os.path.dirname(torch.__file__) + os.sep,) + tuple(
    sysconfig.get_paths()[k] + os.sep
    for k in ("stdlib", "platstdlib", "purelib", "platlib")
)
_PACKAGES = (f"{os.sep}site-packages{os.sep}", f"{os.sep}dist-packages")
_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_FRAME = re.compile(r'File "(.+)", line (\d+), in (.+)')
# The report when the error comes from reading a saved tensor.
OUTSIDE = [
    "freed_graph_report: raised outside backward() and autograd.grad()",
    "a saved tensor read after the backward that freed it "
    "(grad_fn._saved_*, ctx.saved_tensors): read it before that "
    "backward",
    f"see: {SITE}scenarios/saved-tensors-after-backward/"
    "#fix-read-before-backward",
]
# The question that decides between two fixes, when the facts do not,
# in the program's names: {value} is where it keeps the value, {line}
# the earlier call's line, {names} what is reached only through it.
Q_AGAIN = "do you want another update from these inputs?"
Q_ONCE = "or should that loss be backpropagated once only?"
Q_PENALTY = "is the gradient from {line} a term of this loss?"
Q_BOTH = "or do you want both gradients, from one pass?"
Q_CONSTANT = (
    "is the gradient from {line} a constant here (a direction)?"
)
Q_PENALTY_OR = "or a term of this loss (a penalty)?"
Q_LOG = "or is it only read (a log, a saliency map)?"
Q_INPUT_GRAD = "is {names}'s .grad from {line} a term of this loss?"
Q_TARGET = (
    "is {value} a target, a constant for this loss, or a leftover?"
)
Q_CACHE = "or should this loss train through {value} (a cached value)?"
Q_CACHE_NOW = "should this loss train what made {value}, as it is now?"
Q_TARGET_OR = "or should {value} stay as made (a target, a peer's)?"
Q_STATE = "should each step start from {value} as the last one left it?"
Q_FRESH = "or should {value} start fresh in each step?"
Q_HISTORY = (
    "should this backward reach back through every earlier step?"
)
Q_CUT = "or stop at this step?"
Q_SHOULD_TRAIN = "should {names} train? (no optimizer has it)"
Q_NOT_TRAIN = "or is {value} a constant?"
Q_LEFT_ALONE = "should {names} train? (the updates since left it alone)"
Q_TRAINED_THERE = "should the backward at {line} train {names}?"
Q_OTHER_MODEL = "is {value} a fixed input here (from another model)?"
Q_TRAIN_THROUGH = "or should this loss also train {names} through it?"
Q_SHARED = "or should both losses train them, from one forward?"
# What each verdict asks you to do, by family and where it applies.
_APPLY = {
    "detach value": "detach {value} where it is made or kept",
    "detach carried": "detach {value} once per step, before it is "
    "written: an earlier step made it",
    "detach earlier": "detach {value} for the backward at {line}: that "
    "one should not train what made it",
    "recompute value": "make {value} again, from the current "
    "parameters",
    "recompute loss": "a fresh forward for each backward",
    "one-backward earlier": "one backward for this loss and the one at "
    "{line}",
    "one-backward library": "remove the backward at {line}: {package} "
    "backpropagates this loss itself",
    "create-graph earlier": "create_graph=True in the call at {line}",
    "retain-graph earlier": "retain_graph=True in the call at {line}",
}


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
    return os.path.abspath(path) == os.path.abspath(__file__)


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


def _state(node):
    """saved, none (it saves no tensor), freed, or other (an error of
    another kind)."""
    try:
        if isinstance(node, torch.autograd.function.BackwardCFunction):
            raw = node._raw_saved_tensors
            return (
                "saved"
                if _hooked(raw) or node.saved_tensors
                else "none"
            )
        if _name(node) == "CopySlices":
            # It keeps the in-place op's node, not tensors: a gradient
            # of the wrong shape stops at the shape check unless that
            # node is freed (CopySlices::apply_impl, in tensor.cpp).
            shape = node._input_metadata[0].shape
            node(torch.empty(0, *shape, device="meta"))
            return "saved"
        state = "none"
        for attr in dir(node):
            if attr.startswith("_saved_"):
                if _hooked(getattr(node, "_raw" + attr, None)):
                    return "saved"
                value = getattr(node, attr)
                values = (
                    value
                    if isinstance(value, (list, tuple))
                    else [value]
                )
                if any(isinstance(v, torch.Tensor) for v in values):
                    state = "saved"
        return state
    except RuntimeError as e:
        if "freed" in str(e):
            return "freed"
        return "saved" if _name(node) == "CopySlices" else "other"


# --- the record of one run --------------------------------------------


class _Call:
    """A backward() or autograd.grad() call that ran."""

    def __init__(self, number, kind, site, keep, create, inputs, outs):
        self.number, self.kind, self._site = number, kind, site
        self.keep, self.create_graph = keep, create
        self.inputs = inputs  # ids of grad()'s inputs
        self.grad_outputs = outs
        self.versions = {}  # id(leaf): (a weakref to it, its _version)
        self.values = {}  # id(leaf): sum and norm, to see .data writes
        self.seq = None  # nodes made after the call began number above

    @property
    def site(self):
        """The frames of the call, outermost first."""
        if isinstance(self._site, _Stack):  # written out when read
            self._site = self._site.frames()
        return self._site

    @property
    def by(self):
        """None if your code made the call, else the package's name."""
        return _caller(self.site)


_EVENTS = deque(maxlen=512)  # _Call, and (number, optimizer) steps
_COUNT = [0]
_STEPPED = weakref.WeakSet()  # the optimizers seen stepping
_STEP_VERSIONS = {}  # id(parameter): _version and values after its step
_WATCHING = []
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


def _calls():
    return [e for e in _EVENTS if isinstance(e, _Call)]


def _stamp(call, roots, inputs):
    """Mark every node the call ran, and note its leaves' versions."""
    leaves = []
    for node in _ran_by(roots, inputs, call.kind == "backward()"):
        if hasattr(node, "variable"):  # _is_leaf, inlined
            leaves.append(node.variable)
        else:
            node.metadata.setdefault(RAN, []).append(call)
    for leaf, values in zip(leaves, _fingerprints(leaves)):
        call.versions[id(leaf)] = (weakref.ref(leaf), leaf._version)
        call.values[id(leaf)] = values
    for root in roots:
        for node in _scaled_from(root):
            node.metadata.setdefault(ROOT, []).append(call)
    _EVENTS.append(call)


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


def _wrap(real, kind):
    def call(*args, **kwargs):
        # A generator (model.parameters()) can be read once: read it
        # into a tuple that both this file and the real call use.
        args = [_once(a) for a in args]
        kwargs = {k: _once(v) for k, v in kwargs.items()}
        given = dict(zip(_ARGS[kind], args), **kwargs)
        tensors = given.get("tensors", given.get("outputs"))
        outs = given.get("grad_tensors", given.get("grad_outputs"))
        create = bool(given.get("create_graph"))
        keep = given.get("retain_graph")
        keep = create if keep is None else bool(keep)
        roots = [t.grad_fn for t in _as_list(tensors) if t.grad_fn]
        inputs, site, ours = (
            _as_list(given.get("inputs")),
            _site(),
            False,
        )
        seq = _seq_now()
        try:
            return real(*args, **kwargs)
        except RuntimeError as error:
            ours = MESSAGE in str(error)
            if ours and not hasattr(error, "_reported"):
                error._reported = True
                _report(error, roots, _frames(site), outs)
            inputs = None  # it failed: any node may have run
            raise
        finally:
            if not ours:
                ids = inputs and [id(t) for t in inputs]
                number = _next_number()
                ran = _Call(
                    number, kind, site, keep, create, ids, _copies(outs)
                )
                ran.seq = seq
                edges = inputs and [
                    torch.autograd.graph.get_gradient_edge(t).node
                    for t in inputs
                ]
                _stamp(ran, roots, edges)

    call.__wrapped__ = real
    return call


def _site():
    """The stack of a backward's caller: taken, not yet written out."""
    if _GATHER is None:
        return _stack_here(2)
    return _Stack(_GATHER(python=True, script=False, cpp=False))


def _frames(stack):
    return stack.frames() if isinstance(stack, _Stack) else stack


def _report(error, roots, site, outs):
    """Print the report and add its verdict to the error; a failure of
    this file's own must never hide your error."""
    try:
        report = Report(roots, site, outs, failed=True)
        print("\n".join(report.lines()))
        error.add_note("\n".join(report.verdict()))
    except Exception as failure:  # noqa: BLE001
        error.add_note(f"freed_graph_report.py failed: {failure!r}")


def _after_step(optimizer, args, kwargs):
    _STEPPED.add(optimizer)
    _EVENTS.append((_next_number(), type(optimizer).__name__))
    params = [
        p for group in optimizer.param_groups for p in group["params"]
    ]
    for p, values in zip(params, _fingerprints(params)):
        _STEP_VERSIONS[id(p)] = (p._version, values)


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
def watch():
    """Record what a report needs while the block runs; report the
    error if it is raised in it. Nested or repeated use is fine."""
    if _WATCHING:
        yield
        return
    grad = torch.autograd
    creation = getattr(grad.graph, "node_creation_hook", None)
    anomaly = (
        torch.is_anomaly_enabled(),
        torch.is_anomaly_check_nan_enabled(),
    )
    real = grad.backward, grad.grad
    _WATCHING.append(True)
    try:
        with contextlib.ExitStack() as stack:
            grad.backward = _wrap(real[0], "backward()")
            grad.grad = _wrap(real[1], "autograd.grad()")
            hook = register_optimizer_step_post_hook(_after_step)
            stack.callback(hook.remove)
            if creation is not None:
                stack.enter_context(creation(_on_node_created))
            else:
                # Anomaly mode keeps each node's stack; its NaN check, a
                # cost of its own, is not needed.
                if not anomaly[0]:
                    torch.set_anomaly_enabled(True, False)
                stack.callback(torch.set_anomaly_enabled, *anomaly)
                real_set = torch.set_anomaly_enabled
                torch.set_anomaly_enabled = _hold_anomaly(real_set)
                import torch.fx.traceback as fx_traceback

                real_stack = fx_traceback.format_stack
                fx_traceback.format_stack = _quick_stack(real_stack)
                stack.callback(
                    setattr, fx_traceback, "format_stack", real_stack
                )
                stack.callback(
                    setattr, torch, "set_anomaly_enabled", real_set
                )
                # Its warning shows one node's stack; the report, more.
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
        grad.backward, grad.grad = real
        _WATCHING.pop()


# --- the report -------------------------------------------------------


class Report:
    """What the graph behind `roots` reuses, and the fix. `site`: the
    frames of the call about to backpropagate it."""

    def __init__(self, roots, site, outs=None, failed=False):
        # A call that failed has run, and freed, the nodes it reached
        # first: only the record tells them from those run earlier.
        self.roots, self.site, self.failed = roots, site, failed
        self.outs = _copies(outs)
        self.caller = _caller(site)
        self.old, self.new, self.crossings = self._split()
        self.leaves_new, self.leaves_old = self._leaves()
        self.freed_by = self._freed_by()
        self.through, self.only, self.unowned = {}, {}, {}
        self.changed, self.replaced, self.by_hand = [], [], []
        self.holders, self.order, self.trained = [], None, set()
        self.family, self.where, self.said = self._decide()

    # The facts.

    def _old(self, node):
        """True if an earlier backward ran the node (and freed it)."""
        ran = any(not c.keep for c in node.metadata.get(RAN, ()))
        if self.failed or ran:
            return ran
        return _state(node) == "freed"

    def _split(self):
        """Old nodes (a backward already ran them), new ones, and the
        edges from a new node to an old one."""
        old = {r for r in self.roots if self._old(r)}
        new, crossings = [], []
        todo = [r for r in self.roots if r not in old]
        seen = set(todo) | old
        while todo:
            node = todo.pop(0)
            new.append(node)
            for child in _children(node):
                if _is_leaf(child):
                    continue
                if child not in seen and self._old(child):
                    old.add(child)
                if child in old:
                    crossings.append((node, child))
                elif child not in seen:
                    todo.append(child)
                seen.add(child)
        return old, new, crossings

    def _firsts(self):
        """The old nodes this call reaches first."""
        reused = [r for r in self.roots if r in self.old]
        return [n for _, n in self.crossings] + reused

    def _leaves(self):
        """Leaves that need a gradient: reached without the old nodes,
        and reached through them."""

        def below(starts, stop):
            found, seen, todo = {}, set(starts), list(starts)
            while todo:
                for child in _children(todo.pop()):
                    if _is_leaf(child):
                        if child.variable.requires_grad:
                            found[id(child.variable)] = child.variable
                    elif child not in seen and child not in stop:
                        seen.add(child)
                        todo.append(child)
            return found

        return below(self.new, self.old), below(self._firsts(), ())

    def _freed_by(self):
        ran = [
            c for n in self._firsts() for c in n.metadata.get(RAN, ())
        ]
        freeing = [c for c in ran if not c.keep]
        return min(freeing, key=lambda c: c.number) if freeing else None

    @staticmethod
    def _since(call):
        return [
            e
            for e in _EVENTS
            if type(e) is tuple and e[0] > call.number
        ]

    @staticmethod
    def _changed(call, leaves=None):
        """The leaves (of `leaves`, or all) that hold other values now
        than when `call` ran: changed in place (their version moved) or
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

    def _carried(self):
        """True if the lines that made the value also made the node that
        takes it in now: a state fed back, from an earlier iteration."""
        return any(
            _chain(j) and _chain(j) == _chain(n)
            for j, n in self.crossings
        )

    def _built_after(self, by):
        """True if this graph was built after `by` began: a node made
        since takes in the reused value, or a new forward (a node made
        since that takes in a leaf needing a gradient) reaches it.
        Nodes made since only above values made before, such as a loss
        scaled for AMP, do not count."""
        if by.seq is None:
            return False
        return self._new_forward(by) or any(
            j._sequence_nr() > by.seq for j, _ in self.crossings
        )

    def _new_forward(self, by):
        """True if this graph had a forward of its own after `by` began:
        a node made since then that takes in a leaf needing a gradient.
        False: it only combines values made before that backward."""
        if by.seq is None:
            return False
        return any(
            n._sequence_nr() > by.seq
            and any(
                _is_leaf(c) and c.variable.requires_grad
                for c in _children(n)
            )
            for n in self.new
        )

    def _cleared(self, by):
        """True if the .grad that `by` wrote into the leaves this call
        reaches again was cleared since (set to None or zeroed)."""
        again = [
            ref()
            for i, (ref, _) in by.versions.items()
            if i in self.leaves_new or i in self.leaves_old
        ]
        again = [t for t in again if t is not None]
        return bool(again) and all(
            t.grad is None or not t.grad.any() for t in again
        )

    # The verdict.

    def _decide(self):
        """(family, or [(question, family), ...]), where it applies, and
        the program's names for the text. The page at `see:` explains
        each rule."""
        by = self.freed_by
        if not self.old or not by:
            return None, None, {}
        # The optimizers that train something here; with none, a
        # program that updates by hand: count every leaf as trained.
        both = {**self.leaves_old, **self.leaves_new}
        opts = [o for o in _optimizers() if _owners(both, [o])]
        every = _optimizers()
        trained = _owned(opts) if opts else set(both)
        self.trained = trained
        new, old = self.leaves_new, self.leaves_old
        self.through = {i: t for i, t in old.items() if i in trained}
        self.only = {
            i: t for i, t in self.through.items() if i not in new
        }
        if every:
            owned = _owned(every)
            self.unowned = {
                i: t
                for i, t in old.items()
                if i not in new and i not in owned
            }
        self.changed = self._changed(by, self.through)
        self.replaced = _replaced(self.only)
        # Changed outside any step of the optimizer that owns it: an EMA
        # copy, a target network, a perturbation.
        self.by_hand = [
            t
            for t in self.changed
            if id(t) in _STEP_VERSIONS
            and (
                t._version != _STEP_VERSIONS[id(t)][0]
                or _differs(t, _STEP_VERSIONS[id(t)][1])
            )
        ]
        stale = bool(self.changed or self.replaced)
        stepped = self._since(by) and not _running_step()
        mine = [r for r in self.roots if r in self.old]
        firsts = [n for _, n in self.crossings]
        self.holders = (
            [] if mine else _holders(firsts, self.roots, by.seq)
        )
        self.order = (
            "same"
            if mine
            else ("after" if self._built_after(by) else "same")
        )
        # A state fed back from an earlier iteration: the graph that
        # takes it in was built after the backward that freed it (a
        # recurrence inside one forward is not carried).
        carried = not mine and self.order == "after" and self._carried()
        loss = mine or [
            n for n in firsts if by in n.metadata.get(ROOT, ())
        ]
        said = {
            "value": self.holders[0].split(" in ")[0]
            if self.holders
            else "the value",
            "names": _shorten(_names(self.only or self.unowned), 2),
            "package": by.by or self.caller,
        }
        mixed = (by.by is None) != (self.caller is None)
        if loss and mixed and not stale:
            # Your code and a library's both backpropagated this loss.
            said["line"] = _line_of(by if by.by is None else None, self)
            return "one-backward", "library", said
        if (
            not mine
            and by.kind == "autograd.grad()"
            and not by.create_graph
        ):
            inputs = by.inputs or ()
            if self._new_forward(by) and any(
                i in self.leaves_new for i in inputs
            ):
                # A new forward through the input the gradient was
                # taken for: the gradient moved the input (an attack).
                return (
                    [
                        (Q_CONSTANT, "retain-graph"),
                        (Q_PENALTY_OR, "create-graph"),
                    ],
                    "earlier",
                    said,
                )
            if loss and self._new_forward(by):
                # The loss the gradient came from, in a new sum.
                return (
                    [
                        (Q_PENALTY, "create-graph"),
                        (Q_LOG, "one-backward"),
                    ],
                    "read",
                    said,
                )
            if not any(i in trained for i in by.inputs or ()):
                return "create-graph", "earlier", said
            return (
                [
                    (Q_PENALTY, "create-graph"),
                    (Q_BOTH, "one-backward"),
                ],
                "earlier",
                said,
            )
        if loss and carried and not mine:
            if not self.only:
                return "detach", "carried", said  # a running total
            return (
                [
                    (Q_HISTORY, "retain-graph"),
                    (Q_CUT, "detach"),
                ],
                "carried",
                said,
            )
        if loss:  # a loss that was backpropagated already
            if stale and stepped:
                return (
                    [
                        (Q_AGAIN, "recompute"),
                        (Q_ONCE, "one-backward"),
                    ],
                    "loss",
                    said,
                )
            if stale:
                return "recompute", "loss", said
            if by.grad_outputs and not _same(
                by.grad_outputs, self.outs
            ):
                return "retain-graph", "earlier", said  # Jacobian rows
            asked = self._input_grad_asked(by, trained, mine, said)
            if asked:
                return asked
            if not mine and self._cleared(by):
                return "retain-graph", "earlier", said  # each, apart
            return "one-backward", "earlier", said
        if not self.through:
            if self.unowned:
                return (
                    [
                        (Q_SHOULD_TRAIN, "recompute"),
                        (Q_NOT_TRAIN, "detach"),
                    ],
                    "register",
                    said,
                )
            return "detach", "value", said  # it reaches nothing trained
        if carried:
            return (
                [
                    (Q_STATE, "detach"),
                    (Q_FRESH, "recompute"),
                ],
                "carried",
                said,
            )
        if self.order == "same":
            if stale:
                return (
                    [
                        (Q_AGAIN, "recompute"),
                        (Q_ONCE, "one-backward"),
                    ],
                    "value",
                    said,
                )
            asked = self._input_grad_asked(by, trained, mine, said)
            return asked or ("one-backward", "earlier", said)
        # A new forward took in a value kept from before that backward.
        if stale:
            if self.by_hand:
                return (
                    [
                        (Q_TARGET, "detach"),
                        (Q_CACHE, "recompute"),
                    ],
                    "value",
                    said,
                )
            theirs = _owners({i for i in new if i in trained}, opts)
            if (
                self.only
                and theirs
                and not (_owners(self.only, opts) & theirs)
            ):
                # This loss trains another model than the one behind
                # the value; detaching would leave that one no gradient
                # from this loss, which only you can say is right.
                return (
                    [
                        (Q_OTHER_MODEL, "detach"),
                        (Q_TRAIN_THROUGH, "recompute"),
                    ],
                    "value",
                    said,
                )
            if self.only and (
                self.replaced or any(i in trained for i in new)
            ):
                # Made by weights since updated, beside a forward of
                # this loss's own, or from an input since replaced by
                # the one this graph takes: a cache to make again.
                return "recompute", "value", said
            if self.only:
                # Nothing but the kept value trains here: a cache to
                # make again, or a target from an earlier pass (a
                # peer's or a teacher's output) the same optimizer
                # updates.
                return (
                    [
                        (Q_CACHE_NOW, "recompute"),
                        (Q_TARGET_OR, "detach"),
                    ],
                    "value",
                    said,
                )
            return (
                [
                    (Q_TARGET, "detach"),
                    (Q_CACHE, "recompute"),
                ],
                "value",
                said,
            )
        if self.only and self._gan_like(by, every):
            return "detach", "earlier", said
        if (
            not opts
            and self.only
            and self._changed(by)
            and not self.changed
        ):
            # Updates came since and left the value's leaves alone:
            # fixed weights (labels made from them), or weights the
            # updates never reach because nothing registered them (a
            # framework's model that keeps a tensor built eagerly).
            return (
                [
                    (Q_LEFT_ALONE, "recompute"),
                    (Q_NOT_TRAIN, "detach"),
                ],
                "register",
                said,
            )
        trainers = _owners(set(self.only) | set(new), opts)
        if self.only and len(trainers) <= 1:
            if self._new_forward(by):
                # A new forward took in the kept value: one backward of
                # the two losses' sum cannot be had.
                return (
                    [
                        (Q_TARGET, "detach"),
                        (Q_CACHE, "recompute"),
                    ],
                    "value",
                    said,
                )
            # One update (or none) for everything here: no loss of the
            # two is another optimizer's; one pass gives both.
            asked = self._input_grad_asked(by, trained, mine, said)
            return asked or ("one-backward", "earlier", said)
        if self.only:
            return (
                [
                    (Q_TRAINED_THERE, "detach"),
                    (Q_SHARED, "one-backward"),
                ],
                "earlier",
                said,
            )
        return (
            [
                (Q_TARGET, "detach"),
                (Q_CACHE, "recompute"),
            ],
            "value",
            said,
        )

    def _input_grad_asked(self, by, trained, mine, said):
        """The question, when the earlier backward wrote a .grad into
        inputs this loss may be built from (a penalty), else None."""
        inputs = {} if mine else self._input_grads(by, trained)
        if not inputs:
            return None
        said["names"] = _shorten(_names(inputs), 2)
        return (
            [(Q_INPUT_GRAD, "create-graph"), (Q_BOTH, "one-backward")],
            "input-grad",
            said,
        )

    def _input_grads(self, by, trained):
        """Leaves the earlier backward() wrote a .grad into that no
        optimizer trains (inputs): that .grad may be in this loss."""
        every = _optimizers()
        if by.kind != "backward()" or not every:
            return {}
        # Not trained here, and no optimizer's at all: with none
        # owning a leaf of this graph, `trained` is all of its leaves.
        owned, found = _owned(every), {}
        for i, (ref, _) in by.versions.items():
            leaf = ref()
            if leaf is not None and i not in trained and i not in owned:
                found[i] = leaf
        return found

    def _gan_like(self, by, opts):
        """True if the earlier loss trained, outside the value, only
        parameters of other optimizers than those behind the value, and
        this loss trains nothing outside the value that the earlier one
        did not: the earlier loss belonged to those other optimizers (a
        GAN's discriminator step), this one to the value's."""
        if not opts:
            return False
        trained = _owned(opts)
        earlier = {
            i
            for i in by.versions
            if i not in self.leaves_old and i in trained
        }
        now = {i for i in self.leaves_new if i in trained}
        behind = _owners(self.only, opts)
        return (
            bool(earlier)
            and now <= earlier
            and not (_owners(earlier, opts) & behind)
        )

    # The text.

    def lines(self):
        """The report, as printed."""
        out = ["freed_graph_report: what this backward reuses"]
        if not self.old:
            return out + self.verdict()
        now, by = self.site, self.freed_by
        reused = [r for r in self.roots if r in self.old]
        if reused:
            node = reused[0]
            out.append(
                f"reused:   this call's own tensor ({_name(node)}), "
                "already backpropagated"
            )
            out += _at("made at", node, now)
        else:
            user, node = self.crossings[0]
            out.append(
                f"reused:   a value ({_name(node)}) that an earlier "
                "backward went through"
            )
            out += _at("made at", node, now) + _at("used at", user, now)
            held = " and ".join(self.holders[:3]) or (
                "nothing your program reaches: only the graph"
            )
            out.append(f"  held in  {held}")
            more = {_chain(n) for _, n in self.crossings} - {
                _chain(node)
            }
            if more:
                n = len(more)
                out.append(
                    f"  and {n} more {'values' if n > 1 else 'value'}"
                )
        if by is None:
            out.append("freed by: a backward this run did not watch")
        else:
            later = sum(1 for c in _calls() if c.number > by.number)
            mine = _yours(by.site)
            at = _line(mine[-1]) if mine else "library code"
            out.append(f"freed by: {at}")
            ago = (
                f"{later + 1} calls before this one"
                if later
                else "the call before this one"
            )
            caller = f", called by {by.by}" if by.by else ""
            out.append(f"  {by.kind}{caller}, {ago}")
            if self.caller:
                out.append(f"  this backward: called by {self.caller}")
            inputs = not reused and self._input_grads(by, self.trained)
            if self.family and inputs:
                names = _shorten(_names(inputs))
                out.append(
                    f"  wrote .grad into: {names} "
                    "(owned by no optimizer)"
                )
            if self.family and self.order:
                out.append(f"order:    {_ORDER[self.order]}")
            out.append(f"since:    {self._steps_since(by)}")
        if self.family and self.only:
            names = _shorten(_names(self.only))
            out.append(
                f"only through it: {names} (detaching it leaves them "
                "no gradient)"
            )
        elif self.family and not self.through:
            out.append("through it: nothing an optimizer trains")
        if self.family and self.unowned:
            names = _shorten(_names(self.unowned))
            out.append(f"  and owned by no optimizer: {names}")
        if self.family and self.order == "after":
            own = {
                i: t
                for i, t in self.leaves_new.items()
                if i in self.trained
            }
            names = _shorten(_names(own))
            out.append(
                f"outside it: {names} (this loss trains them without "
                "the value)"
                if own
                else "outside it: nothing an optimizer trains"
            )
        return out + self.verdict()

    def _steps_since(self, by):
        steps = [e[1] for e in self._since(by)]
        said = []
        if steps:
            names = ", ".join(sorted(set(steps)))
            said.append(
                f"{_count(len(steps), 'optimizer step')} ({names})"
            )
        running = _running_step()
        if running and self.changed:
            said.append(f"inside {type(running).__name__}.step()")
        said = " and ".join(said) or "no optimizer step"
        if self.changed:
            n = _count(len(self.changed), "parameter")
            said += f"; {n} it depends on changed"
            if self.by_hand:
                said += f" ({len(self.by_hand)} outside the optimizer)"
        if self.replaced:
            n = _count(len(self.replaced), "tensor")
            said += f"; {n} it was made from replaced"
        return said

    def verdict(self):
        """The last lines: the fix and the page that explains it."""
        family = self.family
        if family is None and self.old:
            return [
                "no fix given: no record says which backward freed it; "
                "run the script under freed_graph_report.py"
            ]
        if family is None and self.failed:
            return [
                "the backward that freed this graph ran before watch() "
                "began: watch the whole run"
            ]
        if family is None:
            return ["nothing behind it was run by an earlier backward"]
        said = {"line": _line_of(self.freed_by, self), **self.said}
        if isinstance(family, str):
            apply = _APPLY[f"{family} {self.where}"].format(**said)
            return [
                f"fix: {family}",
                f"  {apply}",
                f"see: {SITE}fix/#{family}",
            ]
        names = " or ".join(f for _, f in family)
        out = [f"fix: {names} (the facts do not decide)"]
        out += [
            f"  {f}: {question.format(**said)}"
            for question, f in family
        ]
        return out + [f"see: {SITE}fix/#{f}" for _, f in family]


# How the graph being backpropagated relates to the freeing backward.
_ORDER = {
    "same": "built before that backward (the same forward)",
    "after": "built after that backward, from a value kept from "
    "before it",
}


def _line_of(call, report):
    """`line N` for a call of yours; else this call's line."""
    if call is not None:
        mine = _yours(call.site)
        if mine:
            return f"line {mine[-1][1]}"
    mine = _yours(report.site)
    return f"line {mine[-1][1]}" if mine else "the earlier call"


def _count(n, noun):
    return f"{n} {noun}{'s' if n > 1 else ''}"


def _at(label, node, now):
    made, via = _where(_made(node), now)
    if made is None:
        return [f"  {label}  line unknown: made before watching began"]
    return [f"  {label}  {_line(made)}"] + (
        [f"      via  {_line(via)}"] if via else []
    )


def _running_step():
    """The optimizer whose step() is running now, if one is."""
    frame = sys._getframe(1)
    while frame is not None:
        me = frame.f_locals.get("self")
        if frame.f_code.co_name == "step" and isinstance(
            me, torch.optim.Optimizer
        ):
            return me
        frame = frame.f_back
    return None


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


def _shorten(names, most=4):
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more


def _replaced(only):
    """Tensors a value was made from that your program replaced: no
    variable of yours holds them, one holds a new leaf of their
    shape."""
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


# --- the program's objects --------------------------------------------


def _reachable(depth=3, budget=20000):
    """(path, value) for your variables and what they hold, breadth
    first: attributes (of modules and of any object, a library's
    included), buffers and submodules, list, tuple, deque and dict
    entries. Paths are spelled as your code would (`model.cache`,
    `log[3]`); a function's local says which function."""
    frame, todo, spaces = sys._getframe(1), [], set()
    while frame is not None:
        code = frame.f_code
        if not _is_library(code.co_filename):
            local = code.co_name != "<module>"
            where = f" in {code.co_name}()" if local else ""
            spaces.add(id(frame.f_globals))
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
        # A script's globals, as a runner's local, are walked already.
        if path.startswith("__") or len(seen) > budget:
            continue
        if id(value) in spaces:
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
            (path + k, where, v, level + 1) for k, v in _parts(value)
        ]


_ROUTINES = (
    types.FunctionType,
    types.MethodType,
    types.BuiltinFunctionType,
    functools.partial,
)
# nn.Module's own bookkeeping (hooks, flags, the three dicts above).
_MODULE_OWN = set(vars(torch.nn.Module()))


def _parts(value):
    """(accessor, item) for what a container or an object holds."""
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
            kind = type(value)
            for k, v in vars(value).items():
                if k in _MODULE_OWN:
                    continue
                # A library's state behind a property (gpytorch's
                # train_targets is _train_targets): the public name.
                public = k.lstrip("_")
                if k != public and isinstance(
                    getattr(kind, public, None), property
                ):
                    k = public
                parts[k] = v
            return [(f".{k}", v) for k, v in parts.items()]
        # Functions and methods hold nothing of yours to name; an
        # object with a __call__ (a library's calculator) does.
        if isinstance(value, (type, type(os), *_ROUTINES)):
            return []
        return [(f".{k}", v) for k, v in vars(value).items()]
    except Exception:  # no __dict__, a dead proxy, one that raises
        return []


def _optimizers():
    found = {id(o): o for o in _STEPPED}
    # A framework's first step, its closure running now: the optimizer
    # has not stepped yet and sits deep in the framework's objects.
    running = _running_step()
    if running is not None:
        found.setdefault(id(running), running)
    for _, value in _reachable(depth=2):
        if isinstance(value, torch.optim.Optimizer):
            found.setdefault(id(value), value)
    return list(found.values())


def _owned(optimizers):
    """The ids of the tensors these optimizers update."""
    return {
        id(p)
        for o in optimizers
        for g in o.param_groups
        for p in g["params"]
    }


def _owners(ids, optimizers):
    """The optimizers (by id) that update one of the tensors `ids`."""
    return {id(o) for o in optimizers if _owned([o]) & set(ids)}


def _names(leaves):
    """The leaves' names, as your code spells them (`enc.0.weight`),
    through the shortest way your variables reach them."""
    found = {}
    for path, value in _reachable(depth=3):
        var = path.strip("`").split("` in ")[0]
        # A framework keeps your model behind its private attributes
        # (Lightning's trainer...._lightning_module): your class's name
        # reads better than that path, a public path better than both.
        hidden = "._" in var
        if isinstance(value, torch.nn.Module):
            names = [(2 if hidden else 0, var)]
            if hidden and _your_class(value):
                names.append((1, type(value).__name__))
            for name, p in value.named_parameters():
                if id(p) in leaves:
                    found.setdefault(id(p), []).extend(
                        (rank, f"{v}.{name}") for rank, v in names
                    )
        elif isinstance(value, torch.Tensor) and id(value) in leaves:
            # After any module's path: a parameter kept by another
            # object too (a distribution's `loc`) is the module's.
            found.setdefault(id(value), []).append((3 + hidden, var))
    unnamed = "a tensor of shape {}"
    return sorted(
        # A module's parameter by its path before a loop's variable.
        min(found[i], key=lambda n: ("." not in n[1], n[0], len(n[1])))[
            1
        ]
        if i in found
        else unnamed.format(tuple(t.shape))
        for i, t in leaves.items()
    )


def _your_class(module):
    """True if the module's class was written in your code."""
    for value in vars(type(module)).values():
        code = getattr(value, "__code__", None)
        if code is not None:
            return not _is_library(code.co_filename)
    return False


def _holders(nodes, roots, since):
    """Every place your program keeps a tensor whose graph reaches one
    of `nodes` (the reused values): the tensors those nodes made, or
    when none is kept, those built on them: first those made since the
    freeing backward (numbered above `since`: a state written back),
    nearest the value first, then older ones (a log of past outputs).
    The tensors this call backpropagates are not holders."""
    targets, new = set(nodes), set(roots)
    memo = {}

    def hops(start, most=5000):
        """Graph steps from `start` down to a reused value."""
        level, seen, depth = [start], {start}, 0
        while level and len(seen) < most:
            if any(n in targets for n in level):
                return depth
            level = [
                c
                for n in level
                for c in _children(n)
                if not _is_leaf(c) and c not in seen and not seen.add(c)
            ]
            depth += 1
        return most

    def reaches(start):
        todo = [start]
        while todo:
            node = todo[-1]
            if node in memo:
                todo.pop()
            elif node in targets:
                memo[node] = True
            else:
                kids = [c for c in _children(node) if not _is_leaf(c)]
                pending = [c for c in kids if c not in memo]
                if pending:
                    todo += pending
                else:
                    memo[node] = any(memo[c] for c in kids)
        return memo[start]

    def found(depth):
        exact, built_on, held = [], [], set()
        for path, value in _reachable(depth=depth):
            if not isinstance(value, torch.Tensor):
                continue
            node = value.grad_fn
            if node is None:
                continue
            if node in new or id(value) in held:
                continue
            if node in targets:
                exact.append(path)
                held.add(id(value))
            elif reaches(node):
                seq = node._sequence_nr()
                older = since is not None and seq < since
                # Ties: a state written back (an attribute, an entry)
                # first.
                plain = "." not in path and "[" not in path
                built_on.append(((older, hops(node), plain), path))
                held.add(id(value))
        built_on.sort(key=lambda ranked: ranked[0])
        return exact or [path for _, path in built_on]

    # Deeper only where nothing nearer holds it: a framework's model
    # keeps a constant in a node's arguments (Keras), a library's
    # cache deep inside an object you hold.
    return found(4) or found(6)


# --- entry points -----------------------------------------------------


def report_freed(tensor):
    """Print the report for the graph behind `tensor`, before the
    backward that would fail; return the nodes a backward already ran
    there (an empty list if none)."""
    roots = [t.grad_fn for t in _as_list(tensor) if t.grad_fn]
    try:
        report = Report(roots, _stack_here())
        print("\n".join(report.lines()))
    except Exception as failure:  # noqa: BLE001
        print(f"freed_graph_report.py failed: {failure!r}")
        return []
    return sorted(report.old, key=lambda n: n._sequence_nr())


def main(argv):
    """python freed_graph_report.py script.py [args]: run script.py as
    `python script.py [args]` would, watched."""
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python freed_graph_report.py script.py [args]")
        return
    sys.argv = list(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
    with watch():
        runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
