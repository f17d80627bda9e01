"""Facts: what one failure's graph and the program show, read from the
records that watching keeps, as one plain record (`Facts`).

The fields in DECIDING are what the rules read: yes-or-no answers and
counts, never a name or a shape. The others are what the report prints
beside them: the lines that made and used the value, where the program
keeps it, and the names of what it trains.
"""

import ast
import functools
import linecache
import math
import os
import re
import sys
import types
from collections import deque

import torch

from .watching import (
    _APPLIED,
    _APPLIED_NAMES,
    _CALLING,
    _COMPARING_NODES,
    _COPY_NODES,
    _CUT_PARAMS,
    _DETACH_READ,
    _DETACH_UNUSED,
    _DIED_UNREAD,
    _DROPPED,
    _FINDINGS,
    _GRAD_CUT,
    _LAST_STEP,
    _LINEAR,
    _ONCE_FOUND,
    _RAN_UNREAD,
    _RECOMPUTED_DIFFER,
    _REPLACED,
    _SAME_PASS,
    _SCALED_FOUND,
    _SCALINGS,
    _STALE,
    _STEPPED,
    _TORCH_DIR,
    _UNUSED,
    _USED_LINES,
    RAN,
    ROOT,
    _below,
    _caller,
    _calls,
    _chain,
    _changed_after,
    _children,
    _copies,
    _cut_at,
    _differs,
    _frames,
    _hooked,
    _is_here,
    _is_leaf,
    _is_library,
    _look_waiting,
    _made,
    _name,
    _package,
    _params,
    _ReadGrad,
    _same,
    _terms,
    _yours,
    after_step,
    changed_since,
    leaves_alive,
    same_data,
    steps_between,
    untrained,
    written_since,
)

# The facts the rules may read, and what each says.
DECIDING = {
    "nested": "the backward that freed it ran inside another backward "
    "(a function's backward that runs backward itself: a reentrant "
    "checkpoint, reversible layers, a custom Function)",
    "nested_checkpoint": "torch.utils.checkpoint (reentrant) ran it: "
    "the function it runs again takes tensors in as arguments",
    "nested_option": "a library ran it that has an option to keep the "
    "graph for its next inner backward (NESTED_OPTIONS)",
    "own_tensor": "the tensor backpropagated now was backpropagated "
    "before (not a value inside its graph)",
    "loss": "what is reused is a loss an earlier backward started from",
    "repeated": "the tensor backpropagated now was backpropagated "
    "before by the same lines of your code (every frame of yours the "
    "same), for the same inputs, both calls your code's: a loop that "
    "runs the one call again",
    "library_and_yours": "one of the two backward calls is your code's "
    "and the other an installed package's",
    "grad_without_graph": "autograd.grad() without create_graph=True "
    "freed it",
    "grad_unread": "no operation read the gradient that call returned "
    "before this one began: no term of this loss is made from it",
    "grad_kept": "that gradient, unread, was still held when this call "
    "began (kept for a later read), not thrown away",
    "timed": "that call ran in a statement timeit (or "
    "torch.utils.benchmark) runs again: the same backward, repeated "
    "on purpose",
    "first_order": "that call was a library's that takes an inner "
    "loop's gradients first order when told to (FIRST_ORDER): first "
    "order by your choice, not a missing create_graph=True",
    "reads_grad": "this call is autograd.grad() without "
    "create_graph=True: it hands its gradients back and writes no "
    ".grad (a reading: an importance, a saliency map, a norm)",
    "grad_inputs_here": "this graph takes in an input that grad() call "
    "took the gradient for",
    "grad_inputs_trained": "an optimizer trains an input that grad() "
    "call took the gradient for",
    "grads_read": "your code took in the gradients of that call (its "
    ".grad copied, flattened, or changed in place: clipped, scaled, "
    "not cleared; grad()'s result squared, logged) before "
    "this one, and nothing with a graph took in what it made from "
    "them (no term of a loss)",
    "grads_kept": "your code still holds a copy it made of the .grad "
    "that backward wrote (a snapshot to subtract or project later), "
    "not only a reading that is gone (a histogram logged)",
    "grad_weight": "a value made from that gradient met a graph only "
    "as one number multiplying it (a loss's weight: d_weight * g_loss, "
    "a boundary term's annealed factor), never as a term of a sum",
    "in_forward": "that backward() ran while a module's forward (or "
    "its hook) was running, and this one outside it, or from the same "
    "line (the hook again, on another module): a loss backpropagated "
    "from inside the forward (an auxiliary loss in a hook), whose "
    "graph the rest of the forward then built on",
    "grad_moved": "a value made from that gradient was taken in beside "
    "an input it was taken for, a leaf no optimizer trains (x + eps * "
    "g.sign(): an attack's step)",
    "inner_step": "values made from that gradient were taken in beside "
    "parameters it was taken for, some of them parameters behind the "
    "reused value that an optimizer trains (with none: module "
    "parameters), as fast weights p - lr * g of a first-order inner "
    "step",
    "inner_step_met": "a node made since takes in, within two nodes "
    "below it, both the value and a weight made from that gradient "
    "(the value read beside the fast weights: feats @ w.T), not only "
    "in a sum of two losses",
    "moved_in_place": "parameters behind the value that a value made "
    "from that gradient moved were changed in place since (p.sub_(lr "
    "* g): the step wrote its weights into them)",
    "grad_constant": "that value was made from the gradient through "
    "operations whose derivative is zero (sign(), a comparison, "
    "detach()): a constant direction, which create_graph=True would "
    "not differentiate",
    "new_forward": "this graph had a forward of its own after that "
    "backward began (a node made since takes in a leaf)",
    "order": "'same': this graph was built before that backward; "
    "'after': built after it, from a value kept from before",
    "unchanged": "a variable of yours holds the reused value itself, "
    "the tensor that earlier backward went through, not only newer "
    "ones built on it: read again as it was (a memo, a cache), unless "
    "the value is fed back",
    "carried": "the lines that made the value also made the node "
    "that takes it in now, or the value is fed back: one call of "
    "yours made it (in any branch) and takes it in, the line taking it "
    "in passes one of its holders as an argument (not only calls it) "
    "or writes back the place that holds it (self.h = f(self.h), "
    "self.state['h'] = ..., the parent's self.cell.h = ...: the "
    "statement read whole), and a variable holds a newer value of "
    "its kind, built on it, that those lines made (h = cell(x, h), "
    "whatever made the first h) (a state)",
    "running_sum": "each node of this graph that takes the value in "
    "is an addition (self.total = self.total + x): a running sum, "
    "where a state is made anew from its last value (h = cell(x, h), "
    "a running average's product)",
    "rebuilt": "the code that made the value ran again since: a node "
    "of this graph is an operation of its kind made by the same lines "
    "(torch's own aside: a hook changes them), or the value is fed "
    "back (a state written at each step; a memo is made once)",
    "summed": "each node that takes the value in is a sum the loss "
    "reaches through sums and constant multiples only (loss = other + "
    "value), none subtracts it (a - ref: an offset) and none sums it "
    "with a value of its own kind (a snapshot compared with its "
    "current value is a reference): detached, the value is a constant "
    "that adds nothing to any gradient",
    "fed_to_layer": "a node made since that backward began, between "
    "this loss and the value, takes in a leaf that needs a gradient: "
    "a layer runs on the value (a state or a memory the model reads), "
    "not only the loss's arithmetic",
    "same_data": "the forward of this loss took in, with no graph of "
    "their own, only tensors the forward before that backward took "
    "in, the same ones unchanged (the batch, the target), and an "
    "operation took that data in beside a value made before that "
    "backward (h = rnn(x, h)): a state read again with the data it "
    "passed, a new pass over the same data (noted during the first "
    "four optimizer steps only)",
    "same_line": "the backward that freed it ran from the same line "
    "of yours as this one (its run before, in a loop), not another "
    "line of the same pass",
    "from_weights": "the value was computed from tensors that need a "
    "gradient alone (no data went into it: every node below it takes "
    "in only those, or a number, and none picks rows by an index, "
    "which may be token ids), not only copied or reshaped, and "
    "nothing that takes it in compares it with another value (a "
    "subtraction, a distance, a loss with it as the target, a product "
    "with its fresh twin)",
    "alone": "the value is the loss's only way to anything that needs "
    "a gradient: one reused value, and no leaf reached without it "
    "(detached, the backward has nothing to run)",
    "stale": "a parameter or tensor the value was made from holds "
    "other values now, or was replaced",
    "replaced": "tensors the value was made from that your program "
    "replaced with new ones of their shape",
    "by_hand": "parameters an optimizer owns behind the value that "
    "changed after that optimizer's last step() (a perturbation, "
    "averaged weights copied back)",
    "stepped": "an optimizer stepped since, and none is stepping now",
    "frozen_since": "parameters the earlier backward reached have "
    "requires_grad off now: switched off between the two calls, so "
    "the second loss must not train them",
    "other_grad_outputs": "the two calls gave different grad_outputs "
    "(rows of a Jacobian)",
    "wrote_input_grad": "that backward() wrote a .grad into tensors no "
    "optimizer owns (inputs)",
    "cleared": "the .grad that backward wrote was cleared since",
    "cleared_apart": "of the .grad that backward wrote into what this "
    "call reaches again, some was set to None since and some is still "
    "held (zero_grad() of one model between the two calls)",
    "through": "parameters an optimizer trains, reached through the "
    "value",
    "only": "of those, reached only through it (detaching it leaves "
    "them no gradient)",
    "unowned": "tensors that need a gradient, reached only through the "
    "value, that no optimizer owns",
    "unregistered": "of those (of all reached only through it, with no "
    "optimizer), one is a tensor a module keeps as a plain attribute, "
    "with requires_grad on: meant to train, never registered",
    "optimizers": "an optimizer owns a leaf of this graph",
    "hidden": "a reentrant checkpoint in this graph hides the "
    "parameters its function uses (they show only when its backward "
    "runs)",
    "trains_outside": "this loss trains parameters without the value",
    "earlier_outside": "the backward that freed it reached parameters "
    "an optimizer trains without the value (detached for that "
    "backward, the value leaves it those)",
    "earlier_owns": "the backward that freed it reached, without the "
    "value, parameters of an optimizer that trains what made the value "
    "(the loss of the value's own model)",
    "as_target": "the value reaches this loss only as the target of a "
    "loss function (mse_loss, kl_div, binary_cross_entropy...), "
    "itself or through one operation, copies, reshapes or rows picked "
    "by an index, and data "
    "went into it (a pseudo-label, a model's earlier output; not a "
    "value of the parameters alone), made by parameters that all make "
    "the loss's input too (not another model's output)",
    "fed_apart": "this loss trains parameters without the value that "
    "the backward that freed it did not reach (a model fed the value)",
    "other_model": "this loss trains another optimizer's parameters "
    "than those behind the value",
    "retrained": "the backward that freed it ran from the same line of "
    "yours as this one (its run before), a step since used the "
    "gradient it wrote through the value into parameters reached only "
    "through it, and none stepped those it reaches without the value: "
    "that loss trains them through it, not the others",
    "gan_like": "the earlier loss trained, besides the value, only "
    "other optimizers' parameters, and this one trains nothing it did "
    "not (a GAN's discriminator step)",
    "updates_left_it": "tensors that backward reached changed since, "
    "none of those behind the value",
    "one_trainer": "at most one optimizer trains the value's "
    "parameters and this graph's, or one trains both",
    "detach_unread": "a detach() on a line of yours, on a value this "
    "backward or the one that freed the graph ran through, returned "
    "tensors nothing ever read (at any pass), and cut there, that "
    "loss still reaches every leaf it reached: the line meant to cut "
    "the graph there, and did not (`h.detach()` alone leaves h as it "
    "was)",
}


class Facts:
    """One failure's facts, as plain attributes: DECIDING's, and what
    the report prints beside them. `reused`: a backward already ran
    part of this graph; `recorded`: a record says which one (every
    other fact is read only then)."""

    def __init__(self, **fields):
        self.__dict__.update(fields)


def read(roots, site, outs=None, failed=False):
    """The facts of the graph behind `roots`. `site`: the frames of the
    call about to backpropagate it; `failed`: that call raised (it ran,
    and freed, the nodes it reached first)."""
    graph = _Graph(roots, failed)
    facts = Facts(
        roots=roots,
        site=site,
        failed=failed,
        old=graph.old,
        crossings=graph.crossings,
        reused=bool(graph.old),
        freed_by=graph.freed_by,
        recorded=bool(graph.old and graph.freed_by),
        caller=_caller(site),
        holders=[],
        holder_named=False,
        unchanged=False,
    )
    if facts.recorded:
        _read_owners(facts, graph)
        _read_changes(facts, graph, _copies(outs))
        _read_shape(facts, graph)
        facts.detach_line = _cut_meant(facts)
        facts.detach_unread = facts.detach_line is not None
    return facts


def _cut_meant(f):
    """The line of a detach() of yours whose results nothing read, on
    an output this graph, or the one the freeing call ran, reaches,
    where that graph's loss, cut there, still reaches every leaf it
    reached and no longer reaches the value reused: the cut the line
    meant and did not make (`h.detach()` as a statement; a loop
    variable rebound to it). Not where the cut would freeze something
    (the loss itself, a shared trunk), nor where the reuse lies
    elsewhere (two losses of one forward, beside a bare detach)."""
    meant = {
        key: line
        for key, line in _DIED_UNREAD.items()
        if line not in _DETACH_READ
    }
    old = set(f.old)
    key = _cut_at(f.roots, list(meant), old) if meant else None
    if key is not None:
        return meant[key]
    reused = {n for _, n in f.crossings}
    for running, line, kept, node in reversed(_RAN_UNREAD):
        if (
            running is f.freed_by
            and kept
            and line not in _DETACH_READ
            and _below(node, reused)
        ):
            return line
    return None


def _unowned(every, old, new):
    """The tensors reached only through the value (in `old`, not in
    `new`) that none of the optimizers `every` owns."""
    if not every:
        return {}
    owned = _owned(every)
    return {
        i: t for i, t in old.items() if i not in new and i not in owned
    }


def _read_owners(f, graph):
    """Who trains what: the optimizers that own a leaf here (with none,
    a program that updates by hand: every leaf counts as trained)."""
    every = _optimizers()
    both = {**graph.leaves_old, **graph.leaves_new}
    opts = [o for o in every if _owners(both, [o])]
    trained = _owned(opts) if opts else set(both)
    new, old = graph.leaves_new, graph.leaves_old
    through = {i: t for i, t in old.items() if i in trained}
    only = {i: t for i, t in through.items() if i not in new}
    unowned = _unowned(every, old, new)
    outside = {i: t for i, t in new.items() if i in trained}
    calling = _CALLING[-1] if _CALLING else None
    # A grad() call trains nothing: it takes gradients for its inputs.
    if calling is not None and calling.kind == "autograd.grad()":
        theirs = _owners(set(outside) & set(calling.inputs or ()), opts)
    else:
        theirs = _owners(set(outside), opts)
    loose = unowned if every else only
    f.__dict__.update(
        optimizers=bool(opts),
        hidden=any(
            _name(n) == "CheckpointFunctionBackward" for n in graph.new
        ),
        through=len(through),
        only=len(only),
        unowned=len(unowned),
        unregistered=bool(loose) and _unregistered(loose),
        trains_outside=bool(outside),
        other_model=bool(
            only and theirs and not (_owners(only, opts) & theirs)
        ),
        gan_like=graph.gan_like(f.freed_by, every, only),
        # Two optimizers over the same parameters (MAML's inner and
        # meta ones) are one trainer: one of them trains both sides.
        one_trainer=len(_owners(set(only) | set(new), opts)) <= 1
        or bool(_owners(only, opts) & _owners(new, opts)),
        only_names=_names(only) if only else [],
        unowned_names=_names(unowned) if unowned else [],
        outside_names=_names(outside) if outside else [],
        _through=through,
        _only=only,
        _outside=outside,
        _trained=trained,
        _every=every,
        # Any optimizer's: the earlier loss may train one this loss
        # never reaches (an entropy coefficient beside the policy).
        earlier_outside=any(
            i in (_owned(every) or trained) and i not in old
            for i in f.freed_by.versions
        ),
        fed_apart=bool(outside)
        and not set(outside) & set(f.freed_by.versions),
        earlier_owns=_earlier_owns(f.freed_by, old, only, opts),
    )


def _earlier_owns(by, old, only, opts):
    """True if the backward `by` reached, outside the value (`old`),
    a parameter an optimizer owning one of `only` updates."""
    mine = _owners(only, opts)
    owned = _owned([o for o in opts if id(o) in mine])
    return any(i in owned and i not in old for i in by.versions)


def _read_changes(f, graph, outs):
    """What changed since the freeing backward, and what it wrote."""
    by = f.freed_by
    # An input grad() took a gradient for, not run by it, counts only
    # where this call takes that gradient again (a descent step by
    # hand), not where it takes another's (one call per parameter).
    again = set(_CALLING[-1].inputs or ()) if _CALLING else set()
    since = changed_since(by, f._through)
    changed = [
        t for t in since if id(t) not in by.taken_only or id(t) in again
    ]
    replaced = _replaced(f._only)
    # Changed outside any step of the optimizer that owns it: an EMA
    # copy, a target network, a perturbation.
    by_hand = [
        t
        for t in changed
        if (was := after_step(t))
        and (t._version != was[0] or _differs(t, was[1]))
    ]
    running = _running_step()
    steps = steps_between(by.number)
    mine = [r for r in f.roots if r in f.old]
    inputs = {} if mine else graph.input_grads(by, f._trained, f._every)
    same_line = _yours(by.site)[-1:] == _yours(f.site)[-1:]
    f.__dict__.update(
        changed=len(changed),
        replaced=len(replaced),
        by_hand=len(by_hand),
        stale=bool(changed or replaced),
        moved_in_place=any(id(t) in by.moved_ids for t in since),
        steps=steps,
        stepping=type(running).__name__ if running else None,
        stepped=bool(steps) and not running,
        frozen_since=any(
            not t.requires_grad for t in leaves_alive(by).values()
        ),
        other_grad_outputs=bool(by.grad_outputs)
        and not _same(by.grad_outputs, outs),
        wrote_input_grad=bool(inputs),
        input_names=_names(inputs) if inputs else [],
        cleared=not mine and graph.cleared(by),
        cleared_apart=not mine and graph.cleared_apart(by),
        grads_cleared=graph.cleared(by),
        updates_left_it=bool(changed_since(by)) and not changed,
        same_line=same_line,
        retrained=same_line
        and any(_changed_after(t, by.number) for t in f._only.values())
        and not any(
            _changed_after(t, by.number) for t in f._outside.values()
        ),
    )


def _read_shape(f, graph):
    """How this graph meets the value: order, the loss, who called."""
    by = f.freed_by
    mine = [r for r in f.roots if r in f.old]
    firsts = [n for _, n in f.crossings]
    order = (
        "same"
        if mine
        else ("after" if graph.built_after(by) else "same")
    )
    alive = by.inputs_alive()
    holders, unchanged, held = (
        ([], False, {}) if mine else _holders(firsts, f.roots, by.seq)
    )
    holders, passed, named = _passed_in_first(
        holders, f.crossings, held
    )
    fed = passed and _fed_back(f.crossings, held, f.site)
    f.__dict__.update(
        own_tensor=bool(mine),
        holders=holders,
        # Your line that takes the value in names the first holder.
        holder_named=named,
        unchanged=unchanged and not fed,
        order=order,
        # A state fed back from an earlier iteration: the graph that
        # takes it in was built after the backward that freed it (a
        # recurrence inside one forward is not carried).
        carried=not mine
        and order == "after"
        and (fed or graph.carried()),
        rebuilt=not mine and (fed or graph.rebuilt()),
        fed_to_layer=graph.fed_to_layer(by),
        same_data=bool(_CALLING) and same_data(by, _CALLING[-1]),
        running_sum=bool(f.crossings)
        and all(_name(j) == "AddBackward0" for j, _ in f.crossings),
        summed=_summed(f.roots, f.crossings),
        from_weights=_from_weights(f.crossings),
        as_target=graph.as_target() and not _weights_alone(f.crossings),
        alone=len(set(firsts)) == 1 and not graph.leaves_new,
        loss=bool(
            mine
            or [n for n in firsts if by in n.metadata.get(ROOT, ())]
        ),
        grad_inputs_here=any(
            graph.leaves_new.get(i) is t for i, t in alive.items()
        ),
        grad_inputs_trained=any(i in f._trained for i in alive),
        new_forward=graph.new_forward(by),
    )
    _read_freeing_call(f, by, graph)


def _summed(roots, crossings):
    """True if each node that takes the value in is a sum, or a
    constant multiple, that a root reaches through such nodes only, and
    none subtracts it or compares it with a twin."""
    linear = {r for r in roots if _name(r) in _LINEAR}
    for r in roots:
        linear.update(n for n, _ in _terms((r, 0), None))
    return bool(crossings) and all(
        j in linear
        and _constant_sum(j)
        and not _twin(j, n)
        and not _subtracted(j, n)
        for j, n in crossings
    )


def _from_weights(crossings, most=2000):
    """True if each value taken in was computed from tensors that need
    a gradient alone (every node below it takes in only those, or a
    number through a scalar's own overload, and picks no rows by an
    index), not only copied or reshaped from them, and no node that
    takes it in compares it with another value (a - ref, a distance,
    a loss with it as the target, a product with its fresh twin)."""
    if not crossings or any(
        _name(j) in _COMPARING_NODES or _twin(j, n)
        for j, n in crossings
    ):
        return False
    return _weights_alone(crossings, most)


def _weights_alone(crossings, most=2000):
    """True if each value taken in was computed, not only copied, from
    tensors that need a gradient alone (no data, no rows picked by an
    index)."""
    todo, seen, computed = [n for _, n in crossings], set(), False
    while todo:
        node = todo.pop()
        if node in seen or _is_leaf(node):
            continue
        seen.add(node)
        kids = [c for c, _ in node.next_functions]
        if (
            len(seen) > most
            or not kids
            or None in kids
            or _name(node) in _INDEXING_NODES
        ):
            return False
        computed = computed or _name(node) not in _COPY_NODES
        todo += kids
    return computed


# Loss functions whose second input is the target.
_TARGET_LOSSES = {
    "MseLossBackward0", "KlDivBackward0", "SmoothL1LossBackward0",
    "HuberLossBackward0", "BinaryCrossEntropyBackward0",
    "BinaryCrossEntropyWithLogitsBackward0",
}  # fmt: skip


# Nodes that pick rows by an index tensor, which the graph does not
# show: token ids from the data look like a table's own positions.
_INDEXING_NODES = {
    "EmbeddingBackward0", "EmbeddingBagBackward0", "IndexBackward0",
    "IndexSelectBackward0", "GatherBackward0", "TakeBackward0",
    "TakeAlongDimBackward0",
}  # fmt: skip


def _subtracted(node, value):
    """True if `node` subtracts `value` (a - ref, torch.add(a, ref,
    alpha=-1)): a reference or an offset, not a term meant to train."""
    kids = [c for c, _ in node.next_functions]
    if len(kids) != 2 or kids[1] is not value:
        return False
    alpha = getattr(node, "_saved_alpha", 1)
    if _name(node) == "SubBackward0":
        return alpha > 0
    return _name(node) == "AddBackward0" and alpha < 0


def _twin(node, value):
    """True if `node` takes in, beside `value`'s node, another made by
    an operation of its kind (ref_logp - logp: a snapshot and its
    current value)."""
    return any(
        c is not value and _name(c) == _name(value)
        for c, _ in node.next_functions
        if c
    )


def _constant_sum(node):
    """A sum, or a multiple of one tensor by a constant (not a product
    of two tensors that need a gradient)."""
    kids = [c for c, _ in node.next_functions if c]
    return _name(node) in _LINEAR and (
        _name(node) not in _SCALINGS or len(kids) == 1
    )


def _module_calls(site):
    """How many module calls (forward and its hooks) were running."""
    module = os.path.join("torch", "nn", "modules", "module.py")
    return sum(
        1
        for path, _, name in site
        if name == "_call_impl" and path.endswith(module)
    )


def _read_freeing_call(f, by, graph):
    """Who made the call that freed the graph, and how: a library or
    your code, without a graph, repeated by a timer, first order by a
    library's option, inside another backward."""
    inner = _inner_caller(by.site) if by.within else None
    checkpoint = os.path.join("torch", "utils", "checkpoint.py")
    f.__dict__.update(
        library_and_yours=(by.by is None) != (f.caller is None),
        grad_without_graph=by.kind == "autograd.grad()"
        and not by.create_graph,
        grad_unread=bool(_CALLING) and id(by) in _CALLING[-1].unread,
        grad_kept=bool(_CALLING)
        and _CALLING[-1].unread.get(id(by), False),
        timed=any(path == _TIMED for path, _, _ in by.site),
        first_order=by.kind == "autograd.grad()"
        and not by.create_graph
        and by.by in FIRST_ORDER,
        nested=by.within is not None,
        nested_in=inner,
        nested_checkpoint=bool(inner) and inner[0].endswith(checkpoint),
        nested_option=bool(inner) and _option(inner) is not None,
        calls_after=sum(1 for c in _calls() if c.number > by.number),
        freed_line=_your_line(by.site),
        this_line=_your_line(f.site),
        repeated=f.own_tensor
        and by.by is None
        and f.caller is None
        and bool(_yours(by.site))
        and _yours(by.site) == _yours(f.site)
        and bool(_CALLING)
        and by.inputs == _CALLING[-1].inputs,
        reads_grad=bool(_CALLING)
        and _CALLING[-1].kind == "autograd.grad()"
        and not _CALLING[-1].create_graph,
        grad_moved=bool(by.moved) and not f.grad_inputs_trained,
        inner_step=f.grad_inputs_trained
        and any(
            f.optimizers or isinstance(t, torch.nn.Parameter)
            for i, t in f._through.items()
            if i in by.moved_ids
        ),
        inner_step_met=graph.meets(by.fast_nodes),
        # Read apart: not a term of this loss, nor of what made it.
        grads_read=(by.grads_read or (by.read and not by.fed))
        and not (_CALLING and _CALLING[-1].dead),
        grads_kept=any(ref() is not None for ref in by.copies),
        grad_weight=by.fed == "weight",
        in_forward=by.kind == "backward()"
        and _module_calls(by.site) > 0
        and (
            _module_calls(by.site) > _module_calls(f.site)
            or _your_line(by.site) == _your_line(f.site)
        ),
    )
    f.grad_constant = f.grad_moved and by.moved == "constant"


# The file name timeit gives the statement it times (so does
# torch.utils.benchmark, which times with it).
_TIMED = "<timeit-src>"

# Libraries that take an inner loop's gradients with no graph when you
# ask for first order, and the option that asks.
FIRST_ORDER = {"higher": "track_higher_grads=False"}


# Libraries whose backward runs backward() block by block, and their
# option that keeps each block's graph for the next (so every block
# adds its share of a value all of them read).
NESTED_OPTIONS = {
    "revtorch": "ReversibleSequence(..., "
    "eagerly_discard_variables=False)",
}


def _option(frame):
    """The option NESTED_OPTIONS knows for the package of `frame`."""
    return NESTED_OPTIONS.get(_package(frame[0]) or "")


def _inner_caller(frames):
    """(file, line, function) of the code that ran a backward from
    inside another one: the innermost frame outside torch.autograd and
    Tensor.backward."""
    skip = (
        os.path.join(os.path.dirname(torch.__file__), "autograd")
        + os.sep,
        os.path.join(os.path.dirname(torch.__file__), "_tensor.py"),
    )
    for frame in reversed(frames):
        if not frame[0].startswith(skip) and not _is_here(frame[0]):
            return frame
    return None


def _your_line(frames):
    """The line number of your innermost frame, or None."""
    mine = _yours(frames)
    return mine[-1][1] if mine else None


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


def _kl_inputs(nodes, targets):
    """The inputs of kl_div among `nodes`, where its target (a value of
    `targets`) needs a gradient: the other factor of each t * input."""
    xlogy = {
        t for x, t in targets.items() if _name(x) == "XlogyBackward0"
    }
    return [
        c
        for n in nodes
        if _name(n) == "MulBackward0" and xlogy & set(_children(n))
        for c in _children(n)
        if c not in xlogy
    ]


def _leaves_below(starts, stop):
    """The leaves that need a gradient among and below the nodes
    `starts`, not through the nodes `stop`: id: tensor."""
    found, seen, todo = {}, set(starts), list(starts)
    while todo:
        node = todo.pop()
        for child in [node] if _is_leaf(node) else _children(node):
            if _is_leaf(child):
                if child.variable.requires_grad:
                    found[id(child.variable)] = child.variable
            elif child not in seen and child not in stop:
                seen.add(child)
                todo.append(child)
    return found


class _Graph:
    """The graph behind `roots`, against the records: the nodes an
    earlier backward ran (old), the others (new), where they meet, the
    leaves on each side, and the backward that freed it."""

    def __init__(self, roots, failed):
        # A call that failed has run, and freed, the nodes it reached
        # first: only the record tells them from those run earlier.
        self.roots, self.failed = roots, failed
        self.old, self.new, self.crossings = self._split()
        self.leaves_new, self.leaves_old = self._leaves()
        self.freed_by = self._freed_by()

    def is_old(self, node):
        """True if an earlier backward ran the node (and freed it)."""
        ran = any(not c.keep for c in node.metadata.get(RAN, ()))
        if self.failed or ran:
            return ran
        return _state(node) == "freed"

    def _split(self):
        """Old nodes (a backward already ran them), new ones, and the
        edges from a new node to an old one."""
        old = {r for r in self.roots if self.is_old(r)}
        new, crossings = [], []
        todo = [r for r in self.roots if r not in old]
        seen = set(todo) | old
        while todo:
            node = todo.pop(0)
            new.append(node)
            for child in _children(node):
                if _is_leaf(child):
                    continue
                if child not in seen and self.is_old(child):
                    old.add(child)
                if child in old:
                    crossings.append((node, child))
                elif child not in seen:
                    todo.append(child)
                seen.add(child)
        return old, new, crossings

    def meets(self, nodes, most=2):
        """True if a node made since takes in, within `most` nodes
        below it, both the value and one of `nodes` (ids)."""
        if not nodes:
            return False
        takers = {id(n) for pair in self.crossings for n in pair}
        for node in self.new:
            near, level = set(), [node]
            for _ in range(most):
                level = [c for n in level for c in _children(n)]
                near.update(id(c) for c in level)
            if near & takers and near & nodes:
                return True
        return False

    def _firsts(self):
        """The old nodes this call reaches first."""
        reused = [r for r in self.roots if r in self.old]
        return [n for _, n in self.crossings] + reused

    def _leaves(self):
        """Leaves that need a gradient: reached without the old nodes,
        and reached through them."""

        return (
            _leaves_below(self.new, self.old),
            _leaves_below(self._firsts(), ()),
        )

    def _freed_by(self):
        ran = [
            c for n in self._firsts() for c in n.metadata.get(RAN, ())
        ]
        freeing = [c for c in ran if not c.keep]
        return min(freeing, key=lambda c: c.number) if freeing else None

    def carried(self):
        """True if the lines that made the value also made the node that
        takes it in now: a state fed back, from an earlier iteration."""
        return any(
            _chain(j) and _chain(j) == _chain(n)
            for j, n in self.crossings
        )

    def rebuilt(self, most=5000):
        """True if a node of the new part was made by the same lines as
        a reused value's node (torch's own aside), an operation of its
        kind: the code that made the value ran again (a state rewritten
        at each step)."""
        targets = {n for _, n in self.crossings}
        made = {_made_by(n) for n in targets} - {None}
        return any(_made_by(n) in made for n in self.new[:most])

    def fed_to_layer(self, by, most=5000):
        """True if a node made since `by` began, between the loss and a
        reused value, takes in a leaf that needs a gradient (a layer
        runs on the value: a state or a memory the model reads), not
        only the loss's arithmetic on it (an error between two passes'
        outputs; the earlier pass's own head, made before, that the
        earlier backward did not run)."""
        if by is None or by.seq is None:
            return True
        parents = {}
        for n in self.new[:most]:
            for c in _children(n):
                parents.setdefault(c, []).append(n)
        todo = [j for j, _ in self.crossings]
        seen = set(todo)
        while todo:
            node = todo.pop()
            if node._sequence_nr() > by.seq and any(
                _weight(c) for c in _children(node)
            ):
                return True
            for p in parents.get(node, ()):
                if p not in seen:
                    seen.add(p)
                    todo.append(p)
        return False

    def as_target(self, most=5000):
        """True if each value taken in reaches the loss only as the
        target of a loss function (the second input of mse_loss,
        kl_div, binary_cross_entropy, a smooth L1 or Huber loss),
        itself or through one operation, copies, reshapes or rows
        picked by an index, and what
        the loss compares with it (its input) is made from every
        parameter behind it: the same model's output against its
        earlier one, not another model's (two views co-trained) or a
        table's rows (prototypes) that the loss should move too."""
        parents, targets, inputs = {}, {}, []
        for n in self.new[:most]:
            kids = _children(n)
            for c in kids:
                parents.setdefault(c, set()).add(n)
            first, second = (n.next_functions + ((None, 0),) * 2)[:2]
            # A target with a graph (one without is data).
            if (
                _name(n) in _TARGET_LOSSES
                and second[0]
                and second[0] is not first[0]
            ):
                targets[n] = second[0]
                inputs.append(first[0])
            # kl_div with a target that needs a gradient is made of
            # xlogy(t, t) - t * input.
            elif _name(n) == "XlogyBackward0" and first[0] is second[0]:
                targets[n] = first[0]
        chain = {t for t in targets.values() if t}
        todo = [t for t in chain if t not in self.old]
        while todo:
            for c in _children(todo.pop()):
                passing = _name(c) in _COPY_NODES | _INDEXING_NODES
                if c not in chain and (passing or c in self.old):
                    chain.add(c)
                    todo += [] if c in self.old else [c]

        def only_target(c):
            kl = any(
                _name(p) == "XlogyBackward0" for p in parents.get(c, ())
            )
            return all(
                p in chain
                or targets.get(p) is c
                or (kl and _name(p) == "MulBackward0")
                for p in parents.get(c, ())
            )

        inputs += _kl_inputs(self.new[:most], targets)
        made = set(_leaves_below([i for i in inputs if i], self.old))
        return (
            bool(self.crossings)
            and all(
                (targets.get(j) is n) or (j in chain and only_target(j))
                for j, n in self.crossings
            )
            and set(self.leaves_old) <= made
        )

    def built_after(self, by):
        """True if this graph was built after `by` began: a node made
        since takes in the reused value, or a new forward (a node made
        since that takes in a leaf needing a gradient) reaches it.
        Nodes made since only above values made before, such as a loss
        scaled for AMP, do not count."""
        if by.seq is None:
            return False
        return self.new_forward(by) or any(
            j._sequence_nr() > by.seq for j, _ in self.crossings
        )

    def new_forward(self, by):
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

    def _written_again(self, by):
        """The leaves `by` wrote a .grad into that this call reaches
        again, still alive."""
        again = [
            ref()
            for i, (ref, _) in by.versions.items()
            if i in self.leaves_new or i in self.leaves_old
        ]
        return [t for t in again if t is not None]

    def cleared(self, by):
        """True if the .grad that `by` wrote into the leaves this call
        reaches again was cleared since (set to None or zeroed)."""
        again = self._written_again(by)
        return bool(again) and all(
            t.grad is None or not t.grad.any() for t in again
        )

    def cleared_apart(self, by):
        """True if, of the leaves `by` wrote a .grad into that this call
        reaches again, your code cleared some since (zero_grad() of one
        model sets them to None) and others still hold one. A .grad of
        zeros is not read as a clear: a zero-initialised LoRA factor
        leaves its partner one."""
        gone = [t.grad is None for t in self._written_again(by)]
        return any(gone) and not all(gone)

    def input_grads(self, by, trained, every):
        """Leaves the earlier backward() wrote a .grad into that no
        optimizer trains (inputs): that .grad may be in this loss."""
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

    def gan_like(self, by, opts, only):
        """True if the earlier loss trained, outside the value, only
        parameters of other optimizers than those behind the value
        (`only`), and this loss trains nothing outside the value that
        the earlier one did not: the earlier loss belonged to those
        other optimizers (a GAN's discriminator step), this one to the
        value's."""
        if not opts:
            return False
        trained = _owned(opts)
        earlier = {
            i
            for i in by.versions
            if i not in self.leaves_old and i in trained
        }
        now = {i for i in self.leaves_new if i in trained}
        behind = _owners(only, opts)
        return (
            bool(earlier)
            and now <= earlier
            and not (_owners(earlier, opts) & behind)
        )


# Operations that hand a weight on as it is, for a layer to read (W.T,
# autocast's copy to half precision, a view).
_AS_IS = {
    "TBackward0",
    "ToCopyBackward0",
    "ViewBackward0",
    "ExpandBackward0",
    "PermuteBackward0",
    "TransposeBackward0",
    "UnsqueezeBackward0",
    "SqueezeBackward0",
    "ReshapeAliasBackward0",
}


def _weight(node, most=8):
    """True if the node is a leaf that needs a gradient, or one handed
    on as it is (W.T, a copy in another precision)."""
    while most and node is not None and _name(node) in _AS_IS:
        kids = _children(node)
        node, most = (kids[0] if len(kids) == 1 else None), most - 1
    return (
        node is not None
        and _is_leaf(node)
        and node.variable.requires_grad
    )


def _made_by(node):
    """The node's kind and the lines that made it, torch's own left
    out (a module's call takes another line with a hook on): None if
    no record says."""
    frames = _made(node)
    if not frames:
        return None
    outside = tuple(
        f[:2] for f in frames if not f[0].startswith(_TORCH_DIR)
    )
    return _name(node), outside


def _unregistered(leaves):
    """True if one of the leaves is a tensor a module keeps as a plain
    attribute, with requires_grad on: meant to train, never registered.
    (A Parameter made and dropped may be a constant made one out of
    habit, as a random projection is: that asks.)"""
    registered, kept = set(), set()
    for _, value in _reachable(depth=4):
        if isinstance(value, torch.nn.Module):
            registered |= {id(p) for p in value.parameters()}
            kept |= {
                id(v)
                for v in vars(value).values()
                if isinstance(v, torch.Tensor)
            }
    return any(i in kept and i not in registered for i in leaves)


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


def _replaced(only, ungraded=False):
    """Tensors a value was made from that your program replaced: no
    variable of yours holds them, one holds a new leaf of their shape
    (`ungraded`: one with no gradient)."""
    held = _leaves_held()
    shapes = {
        tuple(v.shape)
        for v in held.values()
        if not ungraded or v.grad is None
    }
    # A leaf detached from one you hold shares its storage: a copy
    # (meta-learning's virtual model), not one made anew.
    shared = {_storage(v) for v in held.values()} - {None}
    return [
        t
        for i, t in only.items()
        if i not in held
        and tuple(t.shape) in shapes
        and _storage(t) not in shared
    ]


def _storage(t):
    """Where a tensor's data lives (None for one with no storage)."""
    try:
        return t.untyped_storage().data_ptr()
    except (RuntimeError, NotImplementedError):
        return None


def _replaced_leaves(leaves):
    """Of these leaves, those your program replaced (watching asks,
    when a kept graph runs again): plain tensors, not an optimizer's
    (an input made anew, as a perturbation is, not a module's
    parameter, which the walk may not reach), and the new leaf of
    their shape that your variables hold got no gradient from this
    backward."""
    owned = _owned(_optimizers())
    return _replaced(
        {
            id(t): t
            for t in leaves
            if type(t) is torch.Tensor and id(t) not in owned
        },
        ungraded=True,
    )


def _leaves_held():
    """Your variables' leaves that need a gradient, by id."""
    return {
        id(v): v
        for _, v in _reachable(2)
        if isinstance(v, torch.Tensor) and v.is_leaf and v.requires_grad
    }


_REPLACED.append(_replaced_leaves)


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
            # A parameter slot holding a computed tensor (a MAML clone,
            # a differentiable optimizer's update) is a holder too.
            made = {
                k: v
                for k, v in value._parameters.items()
                if v is not None and v.grad_fn is not None
            }
            parts = {**made, **value._buffers, **value._modules}
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
    return sorted(names_of(leaves).values())


def names_of(leaves):
    """id: name, for each of the leaves (id: tensor)."""
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
    # A module's parameter by its path before a loop's variable; a
    # path through a private attribute (an optimizer's `_params`) last.
    rank = lambda n: ("._" in n[1], "." not in n[1], n[0], len(n[1]))  # noqa: E731
    return {
        i: min(found[i], key=rank)[1]
        if i in found
        else unnamed.format(tuple(t.shape))
        for i, t in leaves.items()
    }


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
    The tensors this call backpropagates are not holders. And whether
    one holds a reused value itself (else only newer ones built on it).
    """
    walk = _HolderWalk(set(nodes), set(roots), since)
    # Deeper only where nothing nearer holds it: a framework's model
    # keeps a constant in a node's arguments (Keras), a library's
    # cache deep inside an object you hold.
    found = walk.found(4) or walk.found(6)
    return found, walk.exact, walk.nodes


def _passed_in_first(holders, crossings, held):
    """The holders your lines that take the value in pass to a call or
    call, first (`out, h = rnn(x, h)`: the state is `h`, not `out`;
    `y = cell(x)`: `cell.h`); whether one is passed as an argument
    (`rnn` called, `h` passed); and whether the first one is named
    there, or is what takes the value in (`center = z.mean(0)`). A
    holder is looked for in the lines of its own function only (the
    `h` of `self.h` inside forward() is not your loop's `h`)."""
    lines = [
        (code, _ASSIGNED.sub("", _statement(path, line), count=1))
        for j, _ in crossings
        for path, line, code in _yours(_made(j))
    ]
    takers = {j for j, _ in crossings}

    def named(path, called=True):
        held, where = _place(path) or ("", "")
        name = re.match(r"\w*", held)[0]
        scope = re.search(r"in (\w+)\(\)", where)
        scope = scope[1] if scope else "<module>"
        arg = rf"\b{name}\b(?!\s*(\.\s*\w+\s*)*\()"
        return bool(name) and any(
            re.search(rf"\b{name}\b" if called else arg, text)
            for code, text in lines
            if code == scope
        )

    first = sorted(holders, key=lambda path: not named(path))
    return (
        first,
        any(named(path, called=False) for path in holders)
        or _writes_back(holders, crossings),
        bool(first)
        and (named(first[0]) or held.get(first[0]) in takers),
    )


def _writes_back(holders, crossings):
    """True if a statement of yours that takes the value in assigns a
    place it also reads (`self.h = cell(x, self.h)`, `self.state["h"]
    = ...`, `setattr(self, "h", ...)`, `self.h += x`), and a holder is
    that place: the same attributes and keys after the object (`m.h`
    for `self.h`), or one further down (`m.cell.h`) whose object's
    class defines the function the statement is in. A state kept on
    an object, fed back as the object's, not passed."""
    places = [found for found in map(_place, holders) if found]
    for j, _ in crossings:
        for path, line, _ in _yours(_made(j)):
            for target, read in _assignments(path, line):
                again = rf"{re.escape(target)}(?![\w\[])"
                if re.search(again, read) and any(
                    _same_place(target, place, path, line)
                    for place in places
                ):
                    return True
    return False


def _place(holder):
    """A holder's path (`m.cell.h`) and its function's part, if any."""
    found = re.match(r"`([^`]+)`(.*)", holder)
    return found and (found[1], found[2])


def _after_root(path):
    """The attributes and keys after a path's first name, any index
    that is not a string read as `[*]` (`hs[i]` and `hs[0]` meet)."""
    rest = re.sub(r"^\w+", "", path)
    return re.sub(r"\[(?!['\"])[^\]]*\]", "[*]", rest)


def _same_place(target, place, path, line):
    """True if the statement's target is the holder's place."""
    mine, theirs = _after_root(target), _after_root(place[0])
    if not mine or not theirs.endswith(mine):
        return False
    if mine == theirs:
        return True
    # Further down: the object the statement writes on (its `self`)
    # must be the one holding the place, known by its class.
    owner = place[0][: len(place[0]) - len(mine)]
    name = _function_at(path, line)
    for held, value in _reachable(depth=4):
        if held == f"`{owner}`{place[1]}":
            return any(
                getattr(f, "__code__", None) is not None
                and f.__code__.co_name == name
                and f.__code__.co_filename == path
                for k in type(value).__mro__
                for f in vars(k).values()
            )
    return False


def _assignments(path, line):
    """(target, what the statement reads) for each place the statement
    at `line` assigns: `a.b = ...`, `a[k] += ...` (reads itself),
    `setattr(a, "b", ...)`."""
    stmt = _enclosing(path, line)
    if isinstance(stmt, ast.Assign):
        targets, value = stmt.targets, stmt.value
    elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
        targets, value = [stmt.target], stmt.value
    elif (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and getattr(stmt.value.func, "id", None) == "setattr"
        and len(stmt.value.args) == 3
        and isinstance(stmt.value.args[1], ast.Constant)
    ):
        obj, name, value = stmt.value.args
        place = f"{ast.unparse(obj)}.{name.value}"
        return [(place, ast.unparse(value))]
    else:
        return []
    if value is None:
        return []
    read = ast.unparse(value)
    found = []
    for target in targets:
        parts = getattr(target, "elts", [target])
        for part in parts:
            if isinstance(part, ast.Starred):  # *rest
                part = part.value
            text = ast.unparse(part)
            if isinstance(stmt, ast.AugAssign):
                found.append((text, f"{text} {read}"))
            else:
                found.append((text, read))
    return found


@functools.lru_cache(maxsize=64)
def _parsed(path):
    """A file's source and its simple statements (no body), or None."""
    try:
        with open(path, encoding="utf-8") as file:
            source = file.read()
        tree = ast.parse(source)
    except (OSError, SyntaxError, ValueError):
        return None
    simple, defs = [], []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs.append(node)
        elif isinstance(node, ast.stmt) and not hasattr(node, "body"):
            simple.append(node)
    return source, simple, defs


def _enclosing(path, line):
    """The simple statement of `path` that `line` is part of (a call
    written over several lines included), or None."""
    parsed = _parsed(path)
    return _innermost(parsed[1] if parsed else (), line)


def _function_at(path, line):
    """The name of the innermost function of `path` around `line`."""
    parsed = _parsed(path)
    inner = _innermost(parsed[2] if parsed else (), line)
    return inner.name if inner else "<module>"


def _innermost(nodes, line):
    """The shortest ast node of `nodes` whose lines hold `line`."""
    spans = [
        n for n in nodes if n.lineno <= line <= (n.end_lineno or 0)
    ]
    return min(
        spans, key=lambda n: n.end_lineno - n.lineno, default=None
    )


def _statement(path, line, most=10):
    """The source of the statement `line` is part of: the whole of a
    simple statement written over several lines; else the lines from
    `line` on that its brackets run on to."""
    stmt, parsed = _enclosing(path, line), _parsed(path)
    if stmt is not None:
        return ast.get_source_segment(parsed[0], stmt) or ""
    text, depth = "", 0
    for n in range(line, line + most):
        more = linecache.getline(path, n)
        text += more
        depth += sum(more.count(c) for c in "([{")
        depth -= sum(more.count(c) for c in ")]}")
        if depth <= 0:
            break
    return text


# The targets of an assignment that starts a line (`out, h = `).
_ASSIGNED = re.compile(r"^\s*[\w.,\[\]\s*]+=(?!=)")


def _fed_back(crossings, held, site):
    """True if one call of yours (below the frames it shares with the
    backward's `site`) made the value, in any branch, and takes it in,
    and a variable (`held`: path: node) holds a newer value of its kind
    that the lines taking it in made: the state's next value."""
    for j, n in crossings:
        taker, kind = _chain(j), _name(n)
        call = _below_site(taker, site)[:1]
        if not call or _below_site(_chain(n), site)[:1] != call:
            continue
        if any(
            m is not n and _name(m) == kind and _chain(m) == taker
            for m in held.values()
        ):
            return True
    return False


def _below_site(chain, site):
    """`chain` less the outer frames it shares with `site`'s."""
    shared = tuple(f[:2] for f in _yours(site))
    i = 0
    while i < min(len(chain), len(shared)) and chain[i] == shared[i]:
        i += 1
    return chain[i:]


class _HolderWalk:
    """Your variables' tensors, against the reused values `targets`."""

    def __init__(self, targets, new, since):
        self.targets, self.new, self.since = targets, new, since
        self.memo = {}  # node: whether it reaches a target
        self.exact = False  # a variable holds a reused value itself
        self.nodes = {}  # path: the node of the tensor it holds

    def hops(self, start, most=5000):
        """Graph steps from `start` down to a reused value."""
        level, seen, depth = [start], {start}, 0
        while level and len(seen) < most:
            if any(n in self.targets for n in level):
                return depth
            level = [
                c
                for n in level
                for c in _children(n)
                if not _is_leaf(c) and c not in seen and not seen.add(c)
            ]
            depth += 1
        return most

    def reaches(self, start):
        memo, todo = self.memo, [start]
        while todo:
            node = todo[-1]
            if node in memo:
                todo.pop()
            elif node in self.targets:
                memo[node] = True
            else:
                kids = [c for c in _children(node) if not _is_leaf(c)]
                pending = [c for c in kids if c not in memo]
                if pending:
                    todo += pending
                else:
                    memo[node] = any(memo[c] for c in kids)
        return memo[start]

    def found(self, depth):
        exact, built_on, held = [], [], set()
        for path, value in _reachable(depth=depth):
            if not isinstance(value, torch.Tensor):
                continue
            node = value.grad_fn
            if node is None:
                continue
            if node in self.new or id(value) in held:
                continue
            if node in self.targets:
                exact.append(path)
                self.nodes[path] = node
                held.add(id(value))
            elif self.reaches(node):
                seq = node._sequence_nr()
                older = self.since is not None and seq < self.since
                # Ties: a state written back (an attribute, an entry)
                # first.
                plain = "." not in path and "[" not in path
                built_on.append(((older, self.hops(node), plain), path))
                self.nodes[path] = node
                held.add(id(value))
        built_on.sort(key=lambda ranked: ranked[0])
        self.exact = bool(exact)
        return exact or [path for _, path in built_on]


# --- the facts of a run that goes on ----------------------------------

# The facts the checks may read, and what each says.
CHECKING = {
    "stale": "parameters under a graph kept by retain_graph=True that "
    "changed before a backward ran it again",
    "replaced_inputs": "leaves under a graph kept by retain_graph=True "
    "that your program replaced with new ones of their shape (no "
    "variable holds them) before a backward ran it again and wrote "
    "their gradient: the new ones got none",
    "untrained": "leaves under a graph kept by retain_graph=True "
    "before an optimizer step, that a backward() after it ran again "
    "and wrote their gradient: no optimizer trains any of them",
    "reruns": "the earlier backward calls whose kept graphs that "
    "backward ran again (more than one: history across steps)",
    "double": "a backward() of a loss whose gradients, from an "
    "earlier backward() of it (or of a loss it sums as a term) since "
    "the last optimizer step, were still in .grad",
    "dead": "the loss backpropagated took in, as a term of a sum, a "
    "value made from a gradient with no graph (from autograd.grad() "
    "without create_graph=True, or read from .grad)",
    "detach_unused": "a backward ran through the graph of a tensor "
    "your code had called detach() on, after the value detach() "
    "returned was gone, never taken in by any operation",
    "cut_term": "the loss backpropagated added, as a term of a sum "
    "(through sums and constant multiples only), a number cut "
    "(detach(), .data, no_grad) on another line from parameters that "
    "an optimizer which has stepped trains: a constant, it adds "
    "nothing to their gradient",
    "frozen": "parameters an optimizer holds, with requires_grad, "
    "that a loss reached through a value cut from them (detach(), "
    ".data, no_grad), with no gradient at any step since, nor a "
    "write by anything but a step (trained before: through a value "
    "cut once and read at several steps)",
    "same_pass": "a value cut from a graph an earlier backward ran (a "
    "state detached), taken in by an operation beside data in a "
    "forward that took in, with no graph, only what the forward "
    "before that backward took in (the same batch, unchanged): the "
    "state carries one pass over the data into the next",
    "stale_cut": "parameters that a loss reached through a value cut "
    "from them, read at two steps or more, made before a step changed "
    "them: only through it, or by another path too where the value "
    "was computed from the weights alone (not a copy of them)",
    "clipped_scaled": "clip_grad_norm_ or clip_grad_value_ clipped the "
    ".grad of an optimizer's parameters that a GradScaler's scaled "
    "backward wrote, before unscale_() of that optimizer, and the "
    "scaler's step() for it followed",
    "penalty_scaled": "a backward() of a loss computed from gradients "
    "that autograd.grad() took of a GradScaler's scaled output, never "
    "multiplied by the inverse of the scale",
    "once_lost": "autograd.grad() with create_graph=True, called by "
    "your code, handed back a gradient with no graph, and a Function "
    "whose backward is marked @once_differentiable ran on the way to "
    "that input",
    "unused": "a backward() whose every gradient went to parameters "
    "an optimizer holds, which another optimizer's step passed and a "
    "clear (zero_grad) then dropped unused, at every run of its line "
    "(no hook registered)",
    "leak": "a backward() for one model (the optimizers zeroed before "
    "it and stepped after it) wrote gradients that another optimizer's "
    "step used, into parameters only that one holds, at two runs of "
    "its line or more, while a clear of this model's optimizer dropped "
    "unused what that other model's own backward() wrote into it, a "
    "backward that wrote into those parameters too and ran a graph "
    "kept by retain_graph=True for this one (or kept one it ran), its "
    "part of their gradient pointing against this one's at every run "
    "(cosine -0.5 or below)",
    "recomputed_differs": "a non-reentrant checkpoint's recomputation, "
    "in the backward, saved tensors of the same shapes as its forward "
    "did but with other values",
}


def findings():
    """What the checks read about the run so far: one record for each
    backward call a check may report, one for each cut value that
    froze parameters or was read stale, and one for each clip, or
    penalty, of gradients a GradScaler still scaled."""
    terms = {
        c.cut_term[0]
        for c in _FINDINGS
        if c.cut_term and _trained_names(c.cut_term[0])
    }
    # A term cut once and added: cut-term-adds-nothing says more.
    found = [f for f in _cut_findings() if f.cut not in terms]
    found += [_scaled(f) for f in _SCALED_FOUND]
    found += _differing()
    found += [
        _finding(once_lost=True, once=backward, taken=_frames(site))
        for backward, site in _ONCE_FOUND
    ]
    found += _detach_findings()
    found += _same_pass_findings()
    frozen = {
        id(c.ref())
        for f in found
        if f.cut and f.frozen
        for c in f.params
    }
    found += _unused(frozen)
    found += _leak_findings()
    # A call may be noted twice (a dead term, and a kept graph rerun).
    for call in dict.fromkeys(_FINDINGS):
        if call.dead:
            found.append(_dead(call))
        names = call.cut_term and _trained_names(call.cut_term[0])
        if names:
            found.append(_cut_term(call, names))
        # A gradient term read from the first backward, and that loss
        # counted again: one mistake, and create-graph mends both.
        twice = call.double and not (call.dead and call.term)
        if (
            call.stale
            or call.replaced
            or untrained(call)
            or (twice and _LAST_STEP[0] > call.number)
        ):
            found.append(_rerun(call))
    return found


def _detach_findings():
    """One finding for each backward call that ran through graphs whose
    detach() results your code left unused, for each line of them none
    of whose results was ever read."""
    found = {}
    for at, call, line in _DETACH_UNUSED:
        if line in _DETACH_READ:  # read at another pass
            continue
        summed = call.site if call is not None else None
        found.setdefault((line, id(call)), (_frames(at), summed))
    return [
        _finding(detach_unused=True, taken=taken, summed=summed)
        for taken, summed in found.values()
    ]


def _same_pass_findings():
    """A finding for each backward whose forward took in a state cut
    from an earlier pass over the same data (the report counts them
    by line)."""
    return [
        _finding(
            same_pass=True, taken=_frames(c.site), summed=call.site
        )
        for c, call in _SAME_PASS
    ]


def _cut_findings():
    """A finding for each cut that parameters reached a loss through,
    frozen (no gradient at any step, written by nothing else), or read
    stale."""
    frozen, stale = {}, {}
    for cut, c in _STALE:
        # Never a layer idle at one step, nor one that a step gave a
        # gradient another way (a PPO's value net, stepped on its own
        # loss beside the values it cut into a buffer), unless the value
        # was computed from the weights alone.
        if c not in cut.fresh and (cut.computed or not c.got):
            stale.setdefault(cut, {})[c] = None
    for c in _CUT_PARAMS.values():
        if (
            c.steps
            and not c.got
            # Trained before: a state carried and cut at each step is
            # truncated, not frozen; a gradient is never such a state.
            and (
                not c.before
                or len(c.cut.steps) > 1
                or c.cut.how == _GRAD_CUT
            )
            and not _meant(c)
            and c not in stale.get(c.cut, ())
        ):
            frozen.setdefault(c.cut, []).append(c)
    return [
        _cut_finding(cut, params, frozen=True)
        for cut, params in frozen.items()
    ] + [
        _cut_finding(cut, list(params), frozen=False)
        for cut, params in stale.items()
    ]


def _meant(c):
    """Frozen, or written by hand, on purpose: at a step, or since the
    last (a script's variables may be gone when its run ends)."""
    p = c.ref()
    if c.meant or p is None:
        return c.meant
    return not p.requires_grad or written_since(c)


def _finding(**fields):
    """A finding: the facts CHECKING names (none holds unless given),
    and what its report prints."""
    none = {
        **dict.fromkeys(CHECKING, False),
        "cut": None,
        "clip": None,
        "differ": None,
        "once": None,
    }
    return Facts(**{**none, **fields})


def _cut_finding(cut, params, frozen):
    return _finding(
        frozen=frozen,
        stale_cut=not frozen,
        cut=cut,
        params=params,
        steps=min(c.steps for c in params),
    )


def _scaled(found):
    """The finding for a clip of scaled gradients, or for a loss that
    took in a penalty from them: (its gradients, the backward's
    site)."""
    if isinstance(found, tuple):
        grads, site = found
        return _finding(
            penalty_scaled=True,
            taken=_frames(grads.site),
            summed=_frames(site),
            scale=grads.scale,
        )
    return _finding(clipped_scaled=True, clip=found, scale=found.scale)


def _differing():
    """A finding for each line of your code whose saved tensors a
    checkpoint's recomputation made with other values: the frames of
    the first, and how many."""
    lines = {}
    for site in _RECOMPUTED_DIFFER:
        mine = _yours(site or [])
        key = mine[-1] if mine else None
        lines.setdefault(key, [site, 0])[1] += 1
    return [
        _finding(recomputed_differs=True, differ=site, times=n)
        for site, n in lines.values()
    ]


def _rerun(call):
    """The finding for a call that ran a kept graph again."""
    kept = call.double or call.rerun
    return _finding(
        stale=len(call.stale),
        replaced_inputs=len(call.replaced),
        untrained=untrained(call),
        reruns=call.reruns,
        double=bool(call.double),
        call=call,
        term=call.term,
        part=call.part,
        kept=kept,
        steps=steps_between(kept.number, call.number),
    )


def _trained_names(cut):
    """The names of the cut's parameters that an optimizer which has
    stepped trains (requires_grad on)."""
    held = {id(p) for o in list(_STEPPED) for p in _params(o)}
    alive = [r() for r in cut.params]
    trained = {
        id(p): p
        for p in alive
        if p is not None and p.requires_grad and id(p) in held
    }
    if not trained:
        return []
    named = {**names_of(trained), **(cut.names or {})}
    return sorted(named[i] for i in trained)


def _cut_term(call, names):
    """The finding for a loss that added a constant cut from trained
    parameters (`names`)."""
    cut, site = call.cut_term
    return _finding(
        cut_term=True,
        call=call,
        taken=_frames(cut.site),
        summed=_frames(site),
        how=cut.how,
        names=names,
    )


def _dead(call):
    """The finding for a loss that took in a gradient's dead term."""
    taken, read = call.dead[0], None
    if isinstance(taken, _ReadGrad):  # a backward() wrote it to .grad
        taken, read = taken.site, taken.read
    return _finding(
        dead=True,
        call=call,
        taken=_frames(taken),
        read=read,
        summed=call.dead[1],
    )


def _unused(frozen):
    """A finding for each line of your code whose backward() runs all
    had their gradients cleared unused after another optimizer's step,
    and none a gradient used (a loss meant to train nothing there would
    not be backpropagated), unless a cut it read was cut from
    parameters a cut froze (`frozen`, ids: that check says it)."""
    _look_waiting()
    return [
        _finding(
            unused=True,
            call=call,
            times=times,
            cuts=call.cuts,
            names=call.names or _names(leaves_alive(call)),
        )
        for line, (times, call) in _UNUSED.items()
        # Two runs at least: reads are watched from the first on.
        if times > 1
        and line not in _USED_LINES
        and not _froze(call, frozen)
    ]


# A leak points against the other model's own gradient (a min-max
# game's loss let into the other player) at this cosine or below, at
# every run: a loss meant to train both models points with it, or
# across (now and then below it: a shared encoder's, -0.48 once).
_AGAINST = -0.5


def _model_of(call):
    """The optimizers (ids) a backward() is for: zeroed before it and
    stepped after it; those stepped after it where no optimizer is
    both (a zero_grad() after each step is the last model's); those
    zeroed where none stepped before the next backward()."""
    return (call.zeroed & call.stepped) or call.stepped or call.zeroed


def _leak_findings():
    """A finding for each line whose backward() another model's
    optimizer stepped with, at two runs or more, where that model's own
    loss (for that optimizer alone, writing into the same parameters,
    through a graph one of the two kept with retain_graph=True for the
    other) is kept out of this one's: a clear dropped what it wrote
    here."""
    drops = [(_model_of(c), c) for c in dict.fromkeys(_DROPPED)]
    found = {}
    for call in dict.fromkeys(_APPLIED):
        mine = _model_of(call)
        for o, refs in call.applied.items() if mine else ():
            into = {id(r()) for r in refs} - {id(None)}
            other = next(
                (
                    c
                    for model, c in drops
                    if model == {o}
                    and c.dropped & mine
                    and into & c.versions.keys()
                    and (c in call.kept or call in c.kept)
                ),
                None,
            )
            if o in mine or other is None:
                continue
            a_b, a_a, b_b = call.against.get(o, (0.0, 0.0, 0.0))
            against = a_b / math.sqrt(a_a * b_b) if a_a * b_b else 0.0
            seen = found.setdefault((call.key, o), [0, call, other, []])
            seen[0] += 1
            seen[3].append(against)
    return [
        _finding(
            leak=True,
            call=call,
            times=n,
            other=other,
            cosines=(min(cos), max(cos)),
            names=_APPLIED_NAMES.get(key)
            or _names(
                {id(p): p for r in call.applied[key[1]] if (p := r())}
            ),
        )
        for key, (n, call, other, cos) in found.items()
        if n > 1 and max(cos) <= _AGAINST
    ]


def _froze(call, frozen):
    """True if a cut the call's loss read was cut from parameters that
    frozen-by-cut reports (ids): that check says it."""
    return any(id(r()) in frozen for c in call.cuts for r in c.params)
