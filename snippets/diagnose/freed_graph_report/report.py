"""The report: the facts as they are, the rule that decided, and the
verdict (the fix, where to apply it, and the page that explains it)."""

import linecache
import math
import os
import re

import torch

from .facts import FIRST_ORDER, _option, findings, names_of, read
from .rules import APPLY, CHECKS, checked, decide, guards
from .watching import (
    _GRAD_CUT,
    _PACKAGES,
    _TORCH_DIR,
    RAN,
    _chain,
    _frames,
    _is_here,
    _is_leaf,
    _is_library,
    _line,
    _made,
    _name,
    _package,
    _ran_by,
    _where,
    _yours,
    changed_since,
    steps_between,
)

SITE = "https://backward-twice.github.io/"
_CKPT = os.path.join("utils", "checkpoint.py")
# The report when the error comes from reading a saved tensor.
OUTSIDE = [
    "freed_graph_report: raised outside backward() and autograd.grad()",
    "a saved tensor read after the backward that freed it "
    "(grad_fn._saved_*, ctx.saved_tensors): read it before that "
    "backward",
    "see: "
    f"{SITE}scenarios/saved-tensors-after-backward/#fix-read-before-backward",
]
# The facts a rule reads that no line above prints.
_MADE_ONCE = (
    "made once: the code that made it has not run again since (a "
    "memo, not a state)"
)
_UNREGISTERED = (
    "not registered: a tensor a module keeps as a plain attribute, "
    "with requires_grad on (meant to train)"
)
_STATE = (
    "a state: each step makes it anew from its last value (not by "
    "adding a term to it)"
)
_SAME_DATA = (
    "the same data again: this step's forward took in only what the "
    "step that made it took in (the same batch, unchanged), so the "
    "state would carry that pass into a new pass over it"
)
_RUNNING_SUM = (
    "a running sum: each step adds a term to its last value (a state, "
    "or a sum meant for one step?)"
)
_SUMMED = (
    "a term of the sum: the loss adds it (through sums and constant "
    "multiples only); detached, it is a constant that trains nothing"
)
_REPEATED = (
    "repeated: the same lines of yours backpropagated it before, for "
    "the same inputs (a loop)"
)
_FROZEN_SINCE = (
    "switched off since: parameters that backward trained have "
    "requires_grad off now (the second loss must not train them)"
)
_FROM_WEIGHTS = (
    "made from the weights: computed from parameters alone (no data "
    "went into it), compared with nothing: a function of them"
)
_CONSTANT_DIRECTION = (
    "a constant direction: the gradient moved its input through "
    "operations whose derivative is zero (sign()): create_graph=True "
    "would differentiate nothing there"
)
_READ_APART = (
    "read apart: your code took in the gradients of the earlier call "
    "before this one began (copied, squared, clipped or scaled in "
    "place, set aside), so one pass would sum what you read one by one"
)
_WEIGHT = (
    "a weight: one number made from gradients multiplies a loss (an "
    "adaptive weight, held constant): create_graph=True would "
    "differentiate it"
)
_IN_FORWARD = (
    "inside a forward: that backward ran in a module's forward or "
    "hook, and nothing read the gradients it wrote (an auxiliary loss)"
)
_UNREAD_DETACH = (
    "a detach() unread: your line called detach() on a value a "
    "backward then ran through, and nothing ever read what it "
    "returned; cut there, that loss still trains all it trained, and "
    "the value reused lies below the cut"
)
# By rule: (the fact that must hold, or None, and the line).
_BECAUSE = {
    "detach-unread": [(None, _UNREAD_DETACH)],
    "grad-readings-of-one-forward": [(None, _READ_APART)],
    "same-forward-read-apart": [(None, _READ_APART)],
    "snapshot-kept": [(None, _READ_APART)],
    "grad-as-weight": [(None, _WEIGHT)],
    "backward-in-forward": [(None, _IN_FORWARD)],
    "grad-constant-direction": [(None, _CONSTANT_DIRECTION)],
    "stale-summed-term": [(None, _SUMMED)],
    "made-from-weights": [(None, _FROM_WEIGHTS)],
    "loss-repeated": [(None, _REPEATED)],
    "same-forward-frozen-between": [(None, _FROZEN_SINCE)],
    "carried-made-once": [(None, _MADE_ONCE)],
    "carried-same-data": [(None, _SAME_DATA)],
    "carried-transformed": [(None, _STATE)],
    "carried-state": [("running_sum", _RUNNING_SUM)],
    "unregistered-unowned": [(None, _UNREGISTERED)],
    "unregistered-left-alone": [(None, _UNREGISTERED)],
}

# How the graph being backpropagated relates to the freeing backward.
_ORDER = {
    "same": "built before that backward (the same forward)",
    "after": "built after that backward, from a value kept from before "
    "it",
}


class Report:
    """What the graph behind `roots` reuses, and the fix. `site`: the
    frames of the call about to backpropagate it."""

    def __init__(self, roots, site, outs=None, failed=False):
        self.facts = read(roots, site, outs, failed)
        self.rule = decide(self.facts)

    def lines(self):
        """The report, as printed."""
        f = self.facts
        out = ["freed_graph_report: what this backward reuses"]
        if not f.reused:
            return out + self.verdict()
        out += _reused(f)
        if f.freed_by is None:
            out.append("freed by: a backward this run did not watch")
        else:
            out += _freed_by(f)
        if f.recorded:
            out += _reached(f)
            out.append(f"rule:     {self.rule.name}")
            out += [
                f"  {line}"
                for fact, line in _BECAUSE.get(self.rule.name, ())
                if fact is None or getattr(f, fact)
            ]
        return out + self.verdict()

    def verdict(self):
        """The last lines: the fix and the page that explains it."""
        f, rule = self.facts, self.rule
        if rule is None and f.reused:
            return [
                "no fix given: no record says which backward freed it; "
                "run the script under freed_graph_report.py"
            ]
        if rule is None and f.failed:
            return [
                "the backward that freed this graph ran before watch() "
                "began: watch the whole run"
            ]
        if rule is None:
            return ["nothing behind it was run by an earlier backward"]
        said = _said(f)
        # Two guards may drop the same fix: one line says so.
        out = list(
            dict.fromkeys(
                f"not offered: {g.fix} for the backward at "
                f"{said['line']} (without {said['value']}, that loss "
                "trains nothing)"
                if g.where == "earlier"
                else f"not offered: {g.fix} (without {said['value']}, "
                "this loss trains nothing)"
                for g in rule.dropped
            )
        )
        if isinstance(rule.fix, str):
            apply = APPLY[f"{rule.fix} {rule.where}"].format(**said)
            if said["inner"] == CHECKPOINT and rule.where == "nested":
                apply += "; or use_reentrant=False in its checkpoint()"
            return out + [
                f"fix: {rule.fix}",
                f"  {apply}",
                f"see: {SITE}fix/#{rule.fix}",
            ]
        names = " or ".join(rule.families())
        out += [f"fix: {names} (the facts do not decide)"]
        out += [
            f"  {family}: {question.format(**said)}"
            for question, family in rule.fix
        ]
        return out + [f"see: {SITE}fix/#{f}" for f in rule.families()]


def _reused(f):
    """What is reused, where it was made and used, and who holds it."""
    now = f.site
    reused = [r for r in f.roots if r in f.old]
    if reused:
        node = reused[0]
        return [
            f"reused:   this call's own tensor ({_name(node)}), "
            "already "
            "backpropagated"
        ] + _at("made at", node, now)
    user, node = f.crossings[0]
    out = [
        f"reused:   a value ({_name(node)}) that an earlier backward "
        "went through"
    ]
    made, used = _at("made at", node, now), _at("used at", user, now)
    if [m.split("  ", 2)[-1] for m in made[: len(used)]] == [
        u.split("  ", 2)[-1] for u in used
    ]:  # a loop: the lines that take it in made it, before
        used = ["  used at  the same lines, run again later"]
    out += made + used
    held = " and ".join(f.holders[:3]) or (
        "nothing your program reaches: only the graph"
    )
    if f.unchanged:
        held += " (that value itself, unchanged)"
    out.append(f"  held in  {held}")
    more = {_chain(n) for _, n in f.crossings} - {_chain(node)}
    if more:
        n = len(more)
        out.append(f"  and {n} more {'values' if n > 1 else 'value'}")
    return out


def _freed_by(f):
    """The backward that freed it, and what happened since."""
    by = f.freed_by
    out = [f"freed by: {_first_yours(by.site)}"]
    later = f.calls_after
    ago = (
        f"{later + 1} calls before this one"
        if later
        else "the call before this one"
    )
    caller = f", called by {by.by}" if by.by else ""
    out.append(f"  {by.kind}{caller}, {ago}")
    if f.recorded and f.nested:
        out.append(
            f"  inside:  the backward at {_first_yours(by.within)}"
        )
        out.append(
            f"    (this call was made by {_module(f.nested_in)}, in "
            f"{f.nested_in[2]}())"
        )
    if f.caller:
        out.append(f"  this backward: called by {f.caller}")
    if f.recorded and f.reads_grad:
        out.append(
            "  this call: autograd.grad() without create_graph=True "
            "(hands its gradients back, writes no .grad)"
        )
    if f.recorded and f.input_names:
        names = _shorten(f.input_names)
        out.append(
            f"  wrote .grad into: {names} (owned by no optimizer)"
        )
    if f.recorded and f.nested and f.order == "after":
        # The graph is the function's, run again inside the outer
        # backward: "after" says nothing about your forward.
        out.append("order:    rebuilt inside the outer backward")
    elif f.recorded and f.order:
        out.append(f"order:    {_ORDER[f.order]}")
    out.append(f"since:    {_steps_since(f)}")
    return out


def _reached(f):
    """What this backward trains through the value, and without it."""
    out = []
    if f.only:
        out.append(
            f"only through it: {_shorten(f.only_names)} (detaching it "
            f"leaves {_them(f.only_names)} no gradient)"
        )
    elif not f.through:
        out.append("through it: nothing an optimizer trains")
    if f.unowned:
        out.append(
            f"  and owned by no optimizer: {_shorten(f.unowned_names)}"
        )
    held = [] if f.own_tensor else guards(f, "offered")
    if f.outside_names and f.order == "after":
        out.append(
            f"outside it: {_shorten(f.outside_names)} (this loss "
            f"trains {_them(f.outside_names)} without the value)"
        )
    elif f.order == "after" or held:
        guarded = ", ".join(g.name for g in held)
        out.append(
            "outside it: nothing an optimizer trains"
            + (f" ({guarded})" if held else "")
        )
    if f.hidden:
        out.append(
            "  and what a reentrant checkpoint hides: its function's "
            "parameters show only when its backward runs"
        )
    return out


def _them(names):
    return "it" if len(names) == 1 else "them"


def _steps_since(f):
    said = []
    if f.steps:
        names = ", ".join(sorted(set(f.steps)))
        said.append(
            f"{_count(len(f.steps), 'optimizer step')} ({names})"
        )
    if f.stepping and f.changed:
        said.append(f"inside {f.stepping}.step()")
    said = " and ".join(said) or "no optimizer step"
    if f.changed:
        said += (
            f"; {_count(f.changed, 'parameter')} it depends on changed"
        )
        if f.by_hand:
            said += f" ({f.by_hand} outside the optimizer)"
    if f.replaced:
        n = _count(f.replaced, "tensor")
        said += f"; {n} it was made from replaced"
    return said


def _said(f):
    """The program's names for the verdict's text."""
    line = _line_of(f.freed_line, f.this_line, again=not f.nested)
    yours = f.freed_by.by is None
    return {
        "value": _value_name(f),
        "names": _shorten(f.only_names or f.unowned_names, 2),
        "inputs": _shorten(f.input_names, 2),
        "package": f.freed_by.by or f.caller,
        "line": line,
        "your_line": line if yours else _line_of(None, f.this_line),
        "used_line": _line_of(_used_line(f), None),
        "inner": _inner(f.nested_in) if f.nested_in else None,
        "option": _option(f.nested_in) if f.nested_in else None,
        "first_order": FIRST_ORDER.get(f.freed_by.by or ""),
        "which": _which(f),
        "detach_line": _detach_line(f),
    }


def _detach_line(f):
    """`line N (`code`)` of the detach() whose result nothing read."""
    if not getattr(f, "detach_line", None):
        return None
    path, number = f.detach_line
    code = linecache.getline(path, number).split("  #")[0].strip()
    return f"line {number} (`{code}`)"


def _value_name(f):
    """What the verdict tells you to detach or make again: the first
    holder; but where it holds only a newer tensor built on the value,
    your line that takes the value in does not name it, and no state
    carries the value (a cache made inside a function of yours, a
    loss built on it kept in a variable), the line that made it."""
    if not f.holders:
        return "the value"
    held = _container(f.holders) or f.holders[0].split(" in ")[0]
    if f.unchanged or f.carried or f.holder_named or not f.crossings:
        return held
    made, via = _where(_made(f.crossings[0][1]), f.site)
    frame = via or made
    if frame is None:
        return held
    code = linecache.getline(frame[0], frame[1]).split("  #")[0]
    return f"the value of line {frame[1]} (`{code.strip()}`)"


def _container(holders):
    """`hidden` (each tensor in it), where the first holder is an entry
    of a tuple, list or dict (`hidden[0]`), at any depth, and another
    holder is an entry of the same one (`hidden[1]`): an LSTM's (h, c)
    are carried together, and detaching one leaves the error."""
    paths = [h.split(" in ")[0] for h in holders]
    # The innermost container holding every entry of the first one's
    # variable: per-layer (h, c) in a list (`states[0][1]`,
    # `states[1][0]`) are all of `states`.
    base = paths[0].strip("`")
    kin = [p for p in paths if p.startswith(f"`{base.split('[')[0]}[")]
    while len(kin) > 1 and (
        first := re.fullmatch(r"(.+)\[[^\]]+\]", base)
    ):
        base = first[1]
        if all(p.startswith(f"`{base}[") for p in kin):
            return f"`{base}` (each tensor in it)"
    return None


def _which(f):
    """Which of two backward calls to take out, where one runs in a
    helper of yours (another function than this call's): the later
    one, if it backpropagates the same loss again and the helper's
    gradients are still in .grad; else the helper's (its gradients
    were cleared since: read for a log), so that the later one
    backpropagates the loss, or the sum, once."""
    by, now = _yours(f.freed_by.site), _yours(f.site)
    if not by or not now or by[-1][2] == now[-1][2]:
        return ""
    line = by[-1][1]
    helper = (
        "your script" if by[-1][2] == "<module>" else f"{by[-1][2]}()"
    )
    earlier = f.freed_by
    # Only a backward() of every leaf wrote all this loss's gradients:
    # grad() writes no .grad, inputs= only some.
    whole = earlier.kind == "backward()" and not earlier.inputs
    if f.own_tensor and whole and not f.grads_cleared:
        return (
            f": remove this call (line {now[-1][1]}); {helper} "
            f"already backpropagated this loss at line {line}"
        )
    call = "backward" if earlier.kind == "backward()" else "grad() call"
    if f.own_tensor:
        return (
            f": take the {call} out of {helper} (line {line}) and "
            "read .grad after this one"
        )
    return (
        f": take the {call} out of {helper} (line {line}), so that "
        "this call backpropagates their sum once"
    )


CHECKPOINT = "torch.utils.checkpoint's backward"


def _used_line(f):
    """Your innermost line that took the value in, or None."""
    if not f.crossings:
        return None
    mine = _yours(_made(f.crossings[0][0]))
    return mine[-1][1] if mine else None


def _inner(frame):
    """Who ran a backward inside another, for the verdict's text."""
    if _is_library(frame[0]):
        return f"{_module(frame)}'s backward"
    return f"the backward call at {_module(frame)}"


def _module(frame):
    """A frame's module as `package.module`, or `file:line` for
    yours."""
    path, line, _ = frame
    if not _is_library(path):
        return f"{os.path.basename(path)}:{line}"
    path = path.removeprefix(
        os.path.dirname(os.path.dirname(torch.__file__)) + os.sep
    )
    for marker in _PACKAGES:
        path = path.split(marker)[-1]
    return path.removesuffix(".py").replace(os.sep, ".")


def _line_of(freed_line, this_line, again=False):
    """`line N` for a call of yours; else this call's line. `again`:
    the same line as this call's, not inside it, is an earlier pass of
    a loop."""
    line = freed_line or this_line
    if line and again and freed_line == this_line:
        return f"line {line} (this line, on an earlier pass)"
    return f"line {line}" if line else "the earlier call"


def _count(n, noun):
    return f"{n} {noun}{'s' if n > 1 else ''}"


def _at(label, node, now):
    made, via = _where(_made(node), now)
    if made is None:
        return [f"  {label}  line unknown: made before watching began"]
    return (
        [f"  {label}  {_line(made)}"]
        + ([f"      via  {_line(via)}"] if via else [])
        + (_inside(_made(node)) if label == "made at" else [])
    )


# The packages this site has a page for, where programs on that library
# show their fixes.
LIBRARY_PAGES = {
    "accelerate": "accelerate",
    "botorch": "botorch",
    "deepxde": "deepxde",
    "diffusers": "diffusers",
    "gpytorch": "gpytorch",
    "keras": "keras",
    "kornia": "kornia",
    "pyro": "pyro",
    "pytorch_lightning": "pytorch-lightning",
    "pytorch_metric_learning": "pytorch-metric-learning",
    "snntorch": "snntorch",
    "titans_pytorch": "titans-pytorch",
    "torch_frame": "pytorch-frame",
    "torch_geometric": "torch-geometric",
    "torchflows": "torchflows",
    "torchmetrics": "torchmetrics",
    "torchsurv": "torchsurv",
    "transformers": "transformers",
}


def _inside(frames):
    """The library call your line made that made the value (the first
    frame outside torch after your last), and the site's page for it."""
    mine = [i for i, f in enumerate(frames) if not _is_library(f[0])]
    for frame in frames[mine[-1] + 1 :] if mine else ():
        if frame[0].startswith(_TORCH_DIR) or _is_here(frame[0]):
            continue
        package = _package(frame[0])
        if not package:
            return []
        page = LIBRARY_PAGES.get(package)
        see = f"; {SITE}libraries/{page}/" if page else ""
        return [f"   inside  {_module(frame)}.{frame[2]}(){see}"]
    return []


def _shorten(names, most=4):
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more


def report_error(error, roots, site, outs):
    """Print the report and add its verdict to the error; a failure of
    this file's own must never hide your error."""
    try:
        report = Report(roots, site, outs, failed=True)
        print("\n".join(report.lines()))
        error.add_note("\n".join(report.verdict()))
    except Exception as failure:  # noqa: BLE001
        error.add_note(f"freed_graph_report.py failed: {failure!r}")


class Reporter:
    """What the command says while it watches (recording's reporter):
    the report when the error is raised, where an in-place error after
    retain_graph=True comes from, and, for the checks, what a graph
    kept by retain_graph=True and run again would have raised."""

    def freed(self, error, roots, site, outs):
        report_error(error, roots, site, outs)

    def inplace(self, error, roots, site, outs):
        try:
            kept = _kept_calls(roots)
            first = min(kept, key=lambda c: c.number) if kept else None
            if first is None or not (
                steps_between(first.number) or changed_since(first)
            ):
                return  # another in-place error: its own page
            hidden = _as_if_freed(kept, roots, site, outs)
            print("\n".join(_inplace_head(first) + hidden.lines()))
            error.add_note("\n".join(hidden.verdict()))
        except Exception as failure:  # noqa: BLE001
            error.add_note(f"freed_graph_report.py failed: {failure!r}")

    def names(self, leaves):
        """id: name of each of the leaves, read from your variables
        now."""
        try:
            return names_of(leaves)
        except Exception:  # noqa: BLE001
            return {}

    def rerun(self, call, roots):
        try:
            hidden = _as_if_freed(call.kept, roots, call.site, None)
            call.hidden = hidden.verdict()
        except Exception as failure:  # noqa: BLE001
            call.hidden = [f"freed_graph_report.py failed: {failure!r}"]


def _kept_calls(roots):
    """The calls whose graphs, kept by retain_graph=True, lie under
    `roots`."""
    kept = {}
    for node in _ran_by(roots, None, True):
        ran = None if _is_leaf(node) else node.metadata.get(RAN)
        if ran and ran[0].keep:
            kept[ran[0]] = None
    return list(kept)


def _as_if_freed(kept, roots, site, outs):
    """The report the error would give here, had the `kept` calls not
    kept their graphs."""
    for c in kept:
        c.keep = False
    try:
        return Report(roots, site, outs, failed=True)
    finally:
        for c in kept:
            c.keep = True


def _inplace_head(first):
    at = _first_yours(first.site)
    steps = steps_between(first.number)
    then = (
        f"{_count(len(steps), 'optimizer step')} "
        f"({', '.join(sorted(set(steps)))}) wrote the weights it saved"
        if steps
        else "the weights it saved were written in place"
    )
    return [
        "freed_graph_report: this in-place error follows "
        "retain_graph=True",
        f"kept at:  {at}",
        f"then:     {then}",
        "without retain_graph=True it is this site's error, and:",
    ]


def check_lines():
    """The checks of the run so far: nothing when none holds."""
    groups = {}  # the lines they name: the first check in the table
    for finding in findings():
        check = checked(finding)
        if check is None:
            continue
        group = groups.setdefault(_sites(finding), [check, finding, 0])
        if finding.cut:  # one line's cuts: one check, every parameter
            if group[1] is not finding:
                group[1].params += finding.params
            continue
        if CHECKS.index(check) < CHECKS.index(group[0]):
            group[:2] = check, finding
        # A rerun finding counts the reruns merged into it.
        dead = finding.dead or finding.cut_term
        call = None if dead else getattr(finding, "call", None)
        merged = getattr(call, "merged", 0)
        many = finding.unused or finding.leak
        group[2] += finding.times if many else 1 + merged
    if not groups:
        return []
    out = ["freed_graph_report: check of this run"]
    for check, finding, times in groups.values():
        out += _check_text(check, finding, times)
    return out


def _sites(finding):
    """The lines a check names (a term that adds nothing, and a loss
    counted twice, may name the same two)."""
    if finding.cut:
        line = _first_yours(_frames(finding.cut.site))
        return ("cut", finding.frozen, line)
    if finding.clip:
        return ("clip", _first_yours(_frames(finding.clip.site)))
    if finding.differ:
        return ("differ", _first_yours(finding.differ))
    if finding.penalty_scaled:
        return ("scaled", _first_yours(finding.taken))
    if finding.once_lost:
        return ("once", _first_yours(finding.taken))
    if finding.detach_unused:
        return ("detach", _first_yours(finding.taken))
    if finding.same_pass:
        return ("same-pass", _first_yours(finding.taken))
    if finding.unused:
        return ("unused", _where_called(finding.call))
    if finding.leak:
        return ("leak", _where_called(finding.call))
    if finding.cut_term:
        return (
            "cut-term",
            _first_yours(finding.taken),
            _first_yours(finding.summed),
        )
    if finding.dead:
        return (
            "dead",
            _first_yours(finding.taken),
            _first_yours(finding.summed),
        )
    return (_where_called(finding.kept), _where_called(finding.call))


def _first_yours(frames):
    """Your innermost line of these frames, as the report shows it."""
    mine = _yours(frames)
    return _line(mine[-1]) if mine else "library code"


def _where_called(call):
    return _first_yours(call.site)


def _check_text(check, f, times):
    noun = "scaler step" if f.clip else "backward call"
    calls = f" (at {_count(times, noun)})" if times > 1 else ""
    out = [f"check: {check.name}{calls}"]
    if f.cut:
        return out + _cut_text(check, f)
    if f.cut_term:
        return out + _cut_term_text(check, f)
    if f.dead:
        return out + _dead_text(check, f)
    if f.detach_unused:
        return out + _detach_text(check, f)
    if f.same_pass:
        return out + _same_pass_text(check, f)
    if f.clip:
        return out + _clip_text(check, f)
    if f.penalty_scaled:
        return out + _penalty_text(check, f)
    if f.differ:
        return out + _differ_text(check, f)
    if f.once_lost:
        return out + _once_text(check, f)
    if f.unused:
        return out + _unused_text(check, f)
    if f.leak:
        return out + _leak_text(check, f)
    out += [
        f"  kept at  {_where_called(f.kept)}",
        f"  ran at   {_where_called(f.call)}",
        f"harm:     {_harm(f)}",
        f"why:      {SITE}{check.see}",
    ]
    return out + getattr(f.call, "hidden", [])


def _cut_term_text(check, f):
    names = _shorten(f.names)
    return [
        f"  cut at   {_first_yours(f.taken)}",
        f"  summed at {_first_yours(f.summed)}",
        f"harm:     that term, cut by {f.how} from {names}, which an "
        "optimizer trains, is a constant: it adds nothing to "
        f"{'its' if len(f.names) == 1 else 'their'} gradient",
        f"why:      {SITE}{check.see}",
        "fix: recompute",
        "  make the term again in each step, from the current "
        "parameters, without the cut",
        f"see: {SITE}fix/#recompute",
    ]


def _dead_text(check, f):
    taken = _yours(f.taken)
    line = f"line {taken[-1][1]}" if taken else "the earlier call"
    read = f.read and _yours(f.read)
    apply = f"  create_graph=True in the call at {line}"
    if read:  # read from .grad: grad() gives a gradient with a graph
        apply = (
            "  torch.autograd.grad(..., create_graph=True) in place of "
            f"the backward at {line} and the .grad read at line "
            f"{read[-1][1]}"
        )
    return [
        f"  taken at {_first_yours(f.taken)}",
        *([f"  read at  {_first_yours(f.read)}"] if read else []),
        f"  summed at {_first_yours(f.summed)}",
        "harm:     that term has no graph: it adds nothing to any "
        "parameter's gradient",
        f"why:      {SITE}{check.see}",
        "fix: create-graph",
        apply,
        f"see: {SITE}fix/#create-graph",
    ]


def _detach_text(check, f):
    mine = _yours(f.taken)
    line = f"line {mine[-1][1]}" if mine else "the detach"
    then = f.summed and _first_yours(f.summed)
    return [
        f"  detached at {_first_yours(f.taken)}",
        *([f"  then      {then}"] if then else []),
        "harm:     what detach() returned there was never used, at "
        "any pass, and detach() does not change the tensor it is "
        "called on: if the line was to cut that tensor's graph, it did "
        "not (the backward ran through it)",
        f"why:      {SITE}{check.see}",
        "fix: detach",
        f"  use the value detach() returns at {line} where the tensor "
        "is read (grads = [g.detach() for g in grads])",
        f"see: {SITE}fix/#detach",
    ]


def _same_pass_text(check, f):
    return [
        f"  cut at   {_first_yours(f.taken)}",
        f"  ran at   {_first_yours(f.summed)}",
        "harm:     the forward of that backward took in only what the "
        "forward before the state's last backward took in (the same "
        "batch), and the state cut there entered an operation beside "
        "it: each pass over that data starts from the state the last "
        "pass left",
        f"why:      {SITE}{check.see}",
        "fix: recompute",
        "  start the state fresh at each pass over the data (its first "
        "value, such as zeros); detach it only between the chunks of "
        "one longer sequence",
        f"see: {SITE}fix/#recompute",
    ]


def _cut_text(check, f):
    mine = _yours(_frames(f.cut.site))
    line = f"line {mine[-1][1]}" if mine else "the cut"
    names = sorted({c.name or "a parameter" for c in f.params})
    shown = _shorten(names)
    if f.frozen:
        harm = (
            f"{shown} reached the loss only through the value cut "
            f"there (by {f.cut.how}), and had no gradient at "
            f"{_steps_after(f.steps)}: the cut froze {_them(names)}"
        )
    elif any(c.got for c in f.params):
        one = len(names) == 1
        its, they = (
            ("its", "it trains") if one else ("their", "they train")
        )
        harm = (
            f"that value (cut by {f.cut.how}), computed from the "
            f"weights alone and read at "
            f"{_count(len(f.cut.steps), 'step')}, was made before a "
            f"step changed {shown}: the loss reads what {its} old "
            f"values made, while {they} by another path"
        )
    else:
        one = len(names) == 1
        its, gets = ("its", "it gets") if one else ("their", "they get")
        harm = (
            f"that value (cut by {f.cut.how}), read at "
            f"{_count(len(f.cut.steps), 'step')}, was made before a "
            f"step changed {shown}, which reached the loss only "
            f"through it: the loss reads {its} old values, and {gets} "
            "no gradient"
        )
    why, fix = _cut_fix(check, f, line, shown, names)
    return [
        f"  cut at   {_first_yours(_frames(f.cut.site))}",
        *_inside(_frames(f.cut.site)),
        f"harm:     {harm}",
        f"why:      {SITE}{why}",
        *fix,
    ]


def _cut_fix(check, f, line, shown, names):
    """The page a cut's check links to, and its fix lines."""
    fix = [
        "fix: recompute",
        f"  compute the value inside each step, with its graph, in "
        f"place of the cut at {line}",
        f"see: {SITE}fix/#recompute",
    ]
    why = check.see
    if f.cut.how == _GRAD_CUT:  # a first-order step where it is not
        why = "fix/#wrong-fix-create-graph-retain-only"
        fix = [
            "fix: create-graph",
            f"  create_graph=True in the call at {line}; if {shown} "
            "should stay fixed, requires_grad_(False) on "
            f"{_them(names)} instead",
            f"see: {SITE}fix/#create-graph",
        ]
    elif f.cut.checkpointed:  # the cut hid a backward inside a backward
        fix = [
            "fix: pass it in",
            f"  drop the cut at {line}, and pass the value to "
            "checkpoint() as an argument",
            f"see: {SITE}scenarios/nested-backward/#fix-pass-it-in",
        ]
    return why, fix


def _steps_after(n):
    if n == 1:
        return "the optimizer step since"
    return f"any of the {n} optimizer steps since"


def _clip_text(check, f):
    clip = f.clip
    mine = _yours(_frames(clip.site))
    line = f"line {mine[-1][1]}" if mine else "the clip"
    return [
        f"  clipped at {_first_yours(_frames(clip.site))}",
        f"harm:     {_clip_harm(clip, f.scale)}",
        f"why:      {SITE}{check.see}",
        "fix: unscale",
        f"  scaler.unscale_(optimizer) before the clip at {line}",
        f"see: {SITE}scenarios/amp/#fix-unscale-before-clipping",
    ]


def _clip_harm(clip, scale):
    times = f"the scaler's scale ({scale:g})"
    if clip.how == "value":
        return (
            f"clip_grad_value_ clipped the gradients times {times} at "
            f"{clip.limit:g}: no entry of the gradient the step "
            f"applied exceeds {clip.limit / scale:.3g}"
        )
    measured = float(clip.measured)
    if not math.isfinite(measured):
        return (
            f"clip_grad_norm_ measured {measured}: the gradients times "
            f"{times} overflowed, and the scaler skipped the step; at "
            "a step it takes, the clip cuts the gradient times the "
            "scale"
        )
    applied = min(measured, clip.limit) / scale
    meant = min(measured / scale, clip.limit)
    return (
        f"clip_grad_norm_ measured {measured:.6g}, the real norm "
        f"({measured / scale:.4g}) times {times}: against max_norm "
        f"{clip.limit:g} the step applied a gradient of norm "
        f"{applied:.3g}, where a clip of the real gradient gives "
        f"{meant:.4g}"
    )


def _penalty_text(check, f):
    taken = _yours(f.taken)
    line = f"line {taken[-1][1]}" if taken else "the grad() call"
    return [
        f"  taken at {_first_yours(f.taken)}",
        f"  backpropagated at {_first_yours(f.summed)}",
        f"harm:     those gradients are the real ones times the "
        f"scaler's scale ({f.scale:g}): a term made from them is off "
        "by that factor (or its square), and moves when the scale does",
        f"why:      {SITE}{check.see}",
        "fix: unscale",
        f"  multiply the gradients from {line} by 1 / "
        "scaler.get_scale() before the penalty uses them",
        f"see: {SITE}scenarios/amp/#fix-gradient-penalty",
    ]


def _span(pair):
    low, high = (f"{x:.2f}" for x in pair)
    return low if low == high else f"{low} to {high}"


def _leak_text(check, f):
    harm = (
        f"this loss's gradient went into {_shorten(f.names)}, which "
        "another optimizer holds, and that optimizer's step used it, "
        "pointing against the gradient of that model's own loss (at "
        "the second line; cosine "
        f"{_span(f.cosines)}): this loss trains that model to lose "
        "its own game; the other loss writes into this loss's model "
        "too, and a zero_grad() drops that before its step"
    )
    return [
        f"  ran at   {_where_called(f.call)}",
        f"  other    {_where_called(f.other)}",
        f"harm:     {harm}",
        f"why:      {SITE}diagnose/#check-loss-trains-the-other-model",
        "fix: detach",
        "  compute this loss from a detached copy of the value it "
        "shares with that model (in a GAN, D(fake.detach())), and "
        "keep the graph where that model's own loss reads it",
        f"see: {SITE}{check.see}",
    ]


def _unused_text(check, f):
    cut = f.cuts[0] if f.cuts else None
    shown = _shorten(f.names)
    tops = {n.split(".")[0] if "." in n else n for n in f.names}
    if len(f.names) > 4 and len(tops) == 1:
        shown = f"the {len(f.names)} parameters of {tops.pop()}"
    harm = (
        f"its gradients went only to {shown}, which an optimizer "
        "holds; another optimizer stepped, and they were cleared "
        "before any step used them: this loss trains nothing"
    )
    if cut is None:
        return [
            f"  ran at   {_where_called(f.call)}",
            f"harm:     {harm}",
            f"why:      {SITE}diagnose/#check-backward-trains-nothing",
            "fix: train what it should",
            "  give the parameters this loss should train to the "
            "optimizer that steps after it, or drop the backward",
            f"see: {SITE}diagnose/#check-backward-trains-nothing",
        ]
    line = _first_yours(_frames(cut.site))
    mine = _yours(_frames(cut.site))
    number = f"line {mine[-1][1]}" if mine else "the cut"
    return [
        f"  ran at   {_where_called(f.call)}",
        f"  cut at   {line}",
        *_inside(_frames(cut.site)),
        f"harm:     {harm}; its way to what made that value was cut "
        f"there (by {cut.how})",
        f"why:      {SITE}{check.see}",
        "fix: keep the graph",
        f"  compute this loss from the value with its graph: drop the "
        f"cut at {number} for this loss (keep it only where "
        "another loss must not train what made the value)",
        f"see: {SITE}scenarios/gan/#fix-detach-fake",
    ]


def _once_text(check, f):
    code = f.once.__code__
    path, line = code.co_filename, code.co_firstlineno
    # Decorators first: the line that names this one, else the def.
    for n in range(line, line + 8):
        text = linecache.getline(path, n)
        if "once_differentiable" in text or text.lstrip()[:4] == "def ":
            line = n
            break
    name = f.once.__qualname__
    where = (
        f"write {name} with differentiable torch operations and remove "
        f"@once_differentiable (line {line}), or drop the higher-order "
        "term"
    )
    if _is_library(path):
        where = (
            f"{name} ({_package(path) or 'torch'}) cannot be "
            "differentiated twice: drop the higher-order term, or use "
            "an operation with a double backward there"
        )
    return [
        f"  taken at  {_first_yours(f.taken)}",
        f"  marked at {_line((path, line, name))}",
        "harm:     create_graph=True, yet the gradient has no graph: "
        "that backward runs under no_grad, and at the root of the "
        "graph nothing marks its result; a penalty made from it adds "
        "nothing to any parameter's gradient",
        f"why:      {SITE}{check.see}",
        "fix: differentiable backward",
        f"  {where}",
        f"see: {SITE}{check.see}",
    ]


def _differ_text(check, f):
    mine = _yours(f.differ)
    # The checkpoint() call: your last line before torch's checkpoint(),
    # the innermost one (checkpoints may nest).
    called, yours = "library code", None
    for frame in f.differ:
        if not _is_library(frame[0]):
            yours = frame
        elif frame[0].endswith(_CKPT) and frame[2] == "checkpoint":
            called = _line(yours) if yours else called
    return [
        f"  saved at {_line(mine[-1]) if mine else 'library code'}",
        f"  checkpointed at {called}",
        f"harm:     the backward ran the function again and it saved "
        f"{_count(f.times, 'tensor')} with other values than the "
        "forward: the gradient is that of a forward that never ran",
        f"why:      {SITE}{check.see}",
        "fix: pass it in",
        "  pass what the function reads and your code changes after "
        "the forward to checkpoint() as an argument; keep "
        "preserve_rng_state=True (the default) where it draws random "
        "numbers",
        f"see: {SITE}scenarios/checkpoint/#closure-rebound",
    ]


def _harm(f):
    steps = f.steps
    between = (
        f"{_count(len(steps), 'optimizer step')} "
        f"({', '.join(sorted(set(steps)))})"
        if steps
        else "a write to them"
    )
    if f.stale and f.reruns > 1:
        return (
            f"it ran the graphs kept in {f.reruns} earlier calls, and "
            f"{_count(f.stale, 'parameter')} they saved changed since "
            f"({between}): the graph grows, and its gradient mixes old "
            "weights in"
        )
    if f.stale:
        return (
            f"{between} changed {_count(f.stale, 'parameter')} that "
            "graph saved: this gradient came from their old values"
        )
    if f.replaced_inputs:
        count = _count(f.replaced_inputs, "tensor")
        return (
            f"your program replaced {count} "
            "that graph took in with new ones of their shape since: "
            "the gradient went to the old ones, and the ones you hold "
            "got none"
        )
    if f.untrained:
        count = _count(f.untrained, "tensor")
        return (
            f"after {between}, it ran that graph again into {count} "
            "no optimizer trains: that part of the graph is computed "
            "at every step for nothing, and their .grad adds up"
        )
    return _counted_twice(f)


def _counted_twice(f):
    """The harm of a loss backpropagated again into one step."""
    if f.part:
        which = "this loss is a term of the one backpropagated there"
    elif f.term:
        which = "the loss backpropagated there is a term of this one"
    else:
        return (
            "the gradients of that loss were still in .grad: this step "
            "counts it twice"
        )
    return (
        f"{which}, and its gradients were still in .grad: this step "
        "counts it twice"
    )
