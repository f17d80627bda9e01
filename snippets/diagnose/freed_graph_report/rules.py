"""Rules: the table that turns one failure's facts into a verdict.

Each rule is a small function of the facts (DECIDING's fields only),
with its name, the fix it gives (one family, or two, each with the
question that decides), and where the fix applies. They are tried in
order: the first that holds decides, and the report names it
(`rule: <name>`). The diagnose page lists them, generated from this
table, with the programs each decided.
"""

from .facts import CHECKING, DECIDING

# The question that decides between two fixes, when the facts do not,
# in the program's names: {value} is where it keeps the value, {line}
# the earlier call's line, {names} what is reached only through it,
# {inputs} the inputs that backward wrote a .grad into.
Q_AGAIN = "do you want another update from these inputs?"
Q_ONCE = "or should that loss be backpropagated once only?"
Q_SAME_AGAIN = (
    "should each run of the call at {line} add the same gradient "
    "again (nothing changes between them)?"
)
Q_NEW_PASS = (
    "or should each run backpropagate a new forward (new inputs, or a "
    "model changed since)?"
)
Q_PENALTY = "is the gradient from {line} a term of this loss?"
Q_BOTH = "or do you want both gradients, from one pass?"
Q_CONSTANT = (
    "is the gradient from {line} a constant here (a direction)?"
)
Q_PENALTY_OR = "or a term of this loss (a penalty)?"
Q_LOG_HERE = (
    "is the gradient from {line} only read (a log, a saliency map)?"
)
Q_LOG = "or is it only read (a log, a saliency map)?"
Q_INPUT_GRAD = "is {inputs}'s .grad from {line} a term of this loss?"
Q_TARGET = (
    "is {value} a target, a constant for this loss, or a leftover?"
)
Q_CACHE = "or should this loss train through {value} (a cached value)?"
Q_CACHE_NOW = "should this loss train what made {value}, as it is now?"
Q_TARGET_OR = "or should {value} stay as made (a target, a peer's)?"
Q_STATE = (
    "should each step start from {value} as the last one left it "
    "(the next chunk of one sequence, a running average)?"
)
Q_FRESH = (
    "or should {value} start fresh in each step (each batch unrelated "
    "to the last, a sum meant for one call)?"
)
Q_HISTORY = (
    "should this backward reach back through every earlier step?"
)
Q_CUT = "or stop at this step?"
Q_SHOULD_TRAIN = "should {names} train? (no optimizer has it)"
Q_NOT_TRAIN = "or is {value} a constant?"
Q_LEFT_ALONE = "should {names} train? (the updates since left it alone)"
Q_TRAINED_THERE = "should the backward at {line} train {names}?"
Q_OWNER_ONLY = (
    "should only the backward at {line} train {names}, and this loss "
    "read {value} as an input?"
)
Q_OTHER_MODEL = "is {value} a fixed input here (from another model)?"
Q_TRAIN_THROUGH = "or should this loss also train {names} through it?"
Q_SHARED = "or should both losses train them, from one forward?"
Q_PASS_IN = (
    "can {value} be an argument of the function that reads it at "
    "{used_line}, a tensor of its own, not read from outside it?"
)
Q_BOTH_PASSES = (
    "should this loss train what made {value} in the earlier pass "
    "(one backward of the passes' losses, before the step)?"
)
Q_PASS_TARGET = (
    "or is {value} a target here (a bootstrapped value, a soft label "
    "from the last batch)?"
)
Q_OWN_PART = (
    "should each loss train only its own model (the zero_grad() "
    "between them clears the other's share)?"
)
Q_LEFTOVER_CLEAR = (
    "or is that zero_grad() a leftover, and both losses train all "
    "they reach?"
)
Q_KEEP_INNER = (
    "or should {inner} keep its graph for the next call "
    "(retain_graph=True in that call)?"
)
_ONE_WITH_EARLIER = (
    "one backward for this loss and the one at {line}{which}"
)
# What each verdict asks you to do, by family and where it applies.
APPLY = {
    "detach value": "detach {value} where it is made or kept",
    "detach carried": "detach {value} once per training step, where "
    "the step first reads it (not at each write inside the step): an "
    "earlier step made it",
    "detach state": "detach {value} once per training step, where the "
    "step first reads it: each step starts from the state the last "
    "one left, without backpropagating into it (truncated "
    "backpropagation); if each step should start fresh instead "
    "(unrelated batches, the same data again), make {value} fresh in "
    "each step",
    "detach total": "backpropagate each step's own loss, and keep the "
    "running total as a number (.item()) or detached; a total meant "
    "for one optimizer step (gradient accumulation) starts again at 0 "
    "after that step",
    "detach earlier": "detach {value} for the backward at {line}: that "
    "one should not train what made it",
    "recompute value": "make {value} again, from the current "
    "parameters",
    "recompute inner-step": "make {value} again with the weights the "
    "step from that gradient left: the fast weights it made (a "
    "forward of its own with them), or, where it wrote into the "
    "parameters, their current values",
    "recompute register": "give {names} to an optimizer, and make "
    "{value} again from them in each step",
    "recompute carried": "make {value} fresh in each step, not from "
    "the one an earlier step left",
    "retain-graph carried": "retain_graph=True in the call at {line}, "
    "to reach back through every earlier step (memory grows with "
    "them)",
    "recompute loss": "a fresh forward for each backward",
    "one-backward earlier": _ONE_WITH_EARLIER,
    # What a guard would leave of owner-trained-first's two (none can
    # while this loss trains parameters outside the value).
    "one-backward owner": _ONE_WITH_EARLIER,
    "one-backward nested": "pass {value} as an argument of the "
    "function that reads it at {used_line}, a tensor of its own (not "
    "inside a list or dict), not from outside it: "
    "{inner} then hands its gradient to the backward at "
    "{your_line}, which runs the graph behind it once",
    "retain-graph nested-own": "retain_graph=True in {inner}: it "
    "backpropagates the same output again",
    "retain-graph nested": "{option}: {inner} then keeps each "
    "graph for the next call, and every call adds its share",
    "one-backward library": "remove the backward at {your_line}: "
    "{package} backpropagates this loss itself",
    "detach unread": "use what detach() returns at {detach_line} "
    "where the value is read (`h = h.detach()`, `grads = [g.detach() "
    "for g in grads]`): detach() makes a new tensor and leaves the one "
    "it is called on, graph and all, as it was",
    "detach first-order": "detach {value} for the inner steps "
    "({package} takes their gradients first order: {first_order}), "
    "then add what they changed to {value}, detached, for the outer "
    "loss: it still trains what made {value}",
    "retain-graph timed": "retain_graph=True in the statement the "
    "timer repeats (each run adds the same gradient to .grad; zero it "
    "in the statement if a run must see only its own)",
    "one-backward unread": "take out the autograd.grad() at {line} if "
    "nothing needs its gradient (nothing read it before this "
    "backward); if something reads it later, keep the graph there "
    "(retain_graph=True), or read .grad after this backward",
    "retain-graph apart": "retain_graph=True in the call at {line}, "
    "and give each backward the parameters its loss trains "
    "(loss.backward(inputs=[...])): a zero_grad() between the calls "
    "clears one model, but each backward still adds to every "
    "parameter it reaches",
    "one-backward passes": "add up the losses of the passes and "
    "backpropagate their sum once, before the optimizer steps (their "
    "gradients go into that one step anyway), instead of the backward "
    "at {line} in each pass",
    "one-backward apart": "one backward for this loss and the one at "
    "{line}, without the zero_grad() between them",
    "create-graph earlier": "create_graph=True in the call at {line}",
    "retain-graph earlier": "retain_graph=True in the call at {line}",
}


class Rule:
    """One row of the table. `holds(facts)`: whether it decides;
    `fix`: a family, or (question, family) pairs; `where`: where the
    fix applies (a key of APPLY with the family, or, for questions, a
    word the page uses)."""

    def __init__(self, name, holds, fix, where):
        self.name, self.holds, self.fix, self.where = (
            name,
            holds,
            fix,
            where,
        )
        self.__doc__ = holds.__doc__
        self.dropped = []

    def families(self):
        if isinstance(self.fix, str):
            return [self.fix]
        return [family for _, family in self.fix]


RULES = []


def rule(name, fix, where):
    """Add the decorated function to the table as a rule."""

    def add(holds):
        RULES.append(Rule(name, holds, fix, where))
        return holds

    return add


def decide(facts):
    """The first rule that holds for these facts, or None where no
    record says which backward freed the graph. Of two fixes, one that
    a guard (NEVER) shows would train nothing is not offered: the rule
    then gives the other (`dropped` names the guards that held)."""
    if not facts.recorded:
        return None
    seen = _Reading(facts, DECIDING)
    found = next(r for r in RULES if r.holds(seen))
    if isinstance(found.fix, str):
        return found
    earlier = found.where == "earlier"
    held = [
        g
        for g in guards(facts)
        if g.fix in found.families()
        and (g.where == "earlier") == earlier
    ]
    left = [(q, fam) for q, fam in found.fix if fam not in _fixes(held)]
    if not held or not left:
        return found
    if len(left) == 1 and f"{left[0][1]} {found.where}" not in APPLY:
        return found  # no text for that fix alone here: ask both
    chosen = Rule(found.name, found.holds, left, found.where)
    if len(left) == 1:
        chosen.fix = left[0][1]
    chosen.dropped = held
    return chosen


def guards(facts, where=None):
    """The guards (NEVER) that hold for these facts (those for `where`
    only, if given: "earlier", or "offered" for this loss's value)."""
    seen = _Reading(facts, DECIDING)
    return [
        g for g in NEVER if where in (None, g.where) and g.holds(seen)
    ]


def _fixes(held):
    return {g.fix for g in held}


class _Reading:
    """The facts a rule or a check may read (`allowed`'s), nothing
    else."""

    def __init__(self, facts, allowed):
        self._facts, self._allowed = facts, allowed

    def __getattr__(self, name):
        if name not in self._allowed:
            raise AttributeError(f"a rule reads no fact named {name}")
        return getattr(self._facts, name)


# Guards: a fix a rule would offer beside another, never offered where
# the facts show it trains nothing (in its place where the rule says:
# not a detach for an earlier backward).
NEVER = []


def never(name, fix, where="offered"):
    """Add the decorated function to the guards: `fix` is not offered
    where it holds (`where`: "earlier" for a fix in the earlier
    backward, else one for this loss's value)."""

    def add(holds):
        NEVER.append(Rule(name, holds, fix, where))
        return holds

    return add


@never("detach-trains-nothing", "detach")
def _detach_trains_nothing(f):
    """Everything an optimizer trains that this loss reaches is behind
    the value: detached, this loss would train nothing (a zero
    gradient, or none). Only where one optimizer trains it all: with
    two behind the reused values (a peer's output and your own), a
    detach of the peer's leaves yours; and where no tensor that needs
    a gradient and no optimizer owns is reached (a weight trained by
    hand), and no reentrant checkpoint hides what else it trains."""
    return (
        f.optimizers
        and not f.hidden
        and f.only
        and f.one_trainer
        and not f.trains_outside
        and not f.unowned
        and not f.wrote_input_grad
    )


@never("detach-leaves-nothing", "detach")
def _detach_leaves_nothing(f):
    """The value is the loss's only way to anything that needs a
    gradient (one reused value, and no leaf reached without it):
    detached, the backward would have nothing to run."""
    return f.alone


@never("detach-earlier-trains-nothing", "detach", "earlier")
def _detach_earlier_trains_nothing(f):
    """The backward that freed it reached nothing an optimizer trains
    but through the value: detached for that backward, the earlier
    loss would train nothing."""
    return f.optimizers and not f.earlier_outside and not f.hidden


@rule("nested-own-output", "retain-graph", "nested-own")
def _nested_own_output(f):
    """A backward inside another one (a custom Function's) ran the
    graph this call backpropagates again, its own output's (gradcheck
    backpropagates one output once per row): that inner call keeps
    its graph for the next."""
    return f.nested and f.own_tensor and not f.stale


@rule("nested-checkpoint", "one-backward", "nested")
def _nested_checkpoint(f):
    """A reentrant checkpoint's backward freed it, inside the outer
    backward: each checkpointed call runs again and backpropagates the
    graph of a value its function reads from outside. Passed in as an
    argument, the value's gradient goes to the outer backward, which
    runs that graph once (or use_reentrant=False: no inner backward).
    Detaching it would train nothing behind it. Not for a value stale
    since an earlier step: that one is made again."""
    return f.nested and f.nested_checkpoint and not f.stale


@rule("nested-library-option", "retain-graph", "nested")
def _nested_library_option(f):
    """A library's backward freed it, inside the outer backward, block
    by block, and the library has an option that keeps each block's
    graph for the next (revtorch's eagerly_discard_variables=False):
    every block then adds its share of the value's gradient."""
    return f.nested and f.nested_option and not f.stale


@rule(
    "nested-backward",
    [(Q_PASS_IN, "one-backward"), (Q_KEEP_INNER, "retain-graph")],
    "nested",
)
def _nested_backward(f):
    """A backward that runs inside another one (a custom Function's,
    a library's) freed it: a value its function reads from outside
    (pass it in, so its gradient goes to the outer backward once), or
    a graph that inner backward must keep for the next (its
    retain_graph=True, or the library's option)."""
    return f.nested and not f.stale


@rule("detach-unread", "detach", "unread")
def _detach_unread(f):
    """Your code called detach() on a value this backward, or the one
    that freed the graph, ran through, and nothing ever read what it
    returned: the line meant to cut the graph there (a state carried
    from the last step, a gradient taken as a constant), and cut there
    that loss still reaches every leaf it reached (a cut that would
    freeze a trunk is no such fact: the loss itself, a shared
    encoder)."""
    return f.detach_unread


@rule("library-and-yours", "one-backward", "library")
def _library_and_yours(f):
    """A loss backpropagated by your code and by a library (one call
    from your lines, the other from an installed package), nothing
    changed between: the framework (Lightning's automatic
    optimization, accelerate's `backward`) already backpropagates it;
    remove your call."""
    return f.loss and f.library_and_yours and not f.stale


@rule("grad-unread", "one-backward", "unread")
def _grad_unread(f):
    """An autograd.grad() call without create_graph freed it, and no
    operation read the gradient it returned before this backward began:
    no term of this loss is made from it, so create_graph would change
    nothing. It took the gradient of this loss's own term, or threw it
    away; one model's parameters: one of the two passes is one too
    many."""
    return (
        not f.own_tensor
        and f.grad_without_graph
        and f.grad_unread
        and not f.other_model
        and (f.loss or not f.grad_kept)
    )


@rule("grad-kept-unread", "retain-graph", "earlier")
def _grad_kept_unread(f):
    """The same, but the gradient, of another value than this loss,
    is kept unread for later (a saliency map, one task's gradients set
    beside another's): one pass cannot give both, so that call keeps
    its graph for this one."""
    return (
        not f.own_tensor
        and f.grad_without_graph
        and f.grad_kept
        and not f.other_model
    )


@rule("grad-readings-of-one-forward", "retain-graph", "earlier")
def _grad_readings_of_one_forward(f):
    """Two autograd.grad() calls without create_graph, readings both,
    take gradients from one forward with none between them, and your
    code read the first one's before the second began (a gradient per
    sample or per task, a Fisher): each call but the last keeps the
    graph; one pass would sum what you read apart."""
    return (
        not f.own_tensor
        and f.grad_without_graph
        and f.reads_grad
        and f.grads_read
        and not f.new_forward
        and not f.stale
    )


@rule("grad-constant-direction", "retain-graph", "earlier")
def _grad_constant_direction(f):
    """An autograd.grad() call without create_graph freed it, a value
    made from its gradient through sign()-like operations only moved
    the input it was taken for, and a new forward followed: a constant
    direction (an attack's step) that create_graph=True would not
    differentiate; that call keeps the graph for this backward."""
    return (
        not f.own_tensor
        and f.grad_without_graph
        and f.new_forward
        and f.grad_constant
    )


@rule("inner-step-before-value", "recompute", "inner-step")
def _inner_step_before_value(f):
    """An autograd.grad() call without create_graph freed it, taken for
    parameters an optimizer trains (with none, a module's parameters),
    and weights made from that
    gradient (p - lr * g: a first-order inner step, which
    create_graph=True would make second order) were made for the
    parameters behind the value too, and a new forward read the value
    beside them, or the step wrote them into those parameters in
    place: this loss reads the value the weights before that step
    made. The value is made again with the weights the step left.
    (Where the step moves only the parameters outside the value, a
    head adapted on features of the body, or the value is a term of
    its own beside the new forward, a loss at the weights before the
    step, it is meant as it is: not this rule.)"""
    return (
        not f.own_tensor
        and not f.loss
        and f.grad_without_graph
        and (f.new_forward and f.inner_step_met or f.moved_in_place)
        and f.inner_step
        and not f.first_order
        and not f.stale
    )


@rule(
    "grad-moved-input",
    [(Q_CONSTANT, "retain-graph"), (Q_PENALTY_OR, "create-graph")],
    "earlier",
)
def _grad_moved_input(f):
    """An autograd.grad() call without create_graph freed it, and a new
    forward took in the input it took the gradient for: the gradient
    moved the input (an attack). A constant direction keeps the graph
    for the next backward; a term of this loss needs create_graph."""
    return (
        not f.own_tensor
        and f.grad_without_graph
        and f.new_forward
        and (f.grad_inputs_here or f.grad_moved)
    )


@rule(
    "grad-then-new-sum",
    [(Q_PENALTY, "create-graph"), (Q_LOG, "one-backward")],
    "read",
)
def _grad_then_new_sum(f):
    """An autograd.grad() call without create_graph freed a loss, and a
    new forward sums that loss into this one: the gradient is a term
    (create_graph) or only read (one backward, then read .grad)."""
    return (
        not f.own_tensor
        and f.grad_without_graph
        and f.loss
        and f.new_forward
    )


@rule("first-order-inner-loop", "detach", "first-order")
def _first_order_inner_loop(f):
    """A library's inner loop, kept first order by your choice
    (higher's track_higher_grads=False), took its gradients through
    the value: create_graph=True would make it second order. The inner
    steps adapt a detached copy; the outer loss adds what they changed
    to the value as a constant, and trains what made it."""
    return f.first_order and not f.own_tensor and not f.stale


@rule("grad-as-weight", "retain-graph", "earlier")
def _grad_as_weight(f):
    """An autograd.grad() call without create_graph freed it, and what
    your code made from its gradient met a graph only as one number
    multiplying a loss (an adaptive weight: a norm ratio, an annealed
    boundary factor) from gradients for parameters an optimizer
    trains, which such schemes hold constant: create_graph would
    differentiate the weight. That call keeps its graph. (A force,
    the gradient for an input, times a probability is the loss itself:
    create_graph.)"""
    return (
        not f.own_tensor
        and f.grad_without_graph
        and f.grad_weight
        and f.grad_inputs_trained
        and not f.stale
        and not f.stepped
    )


@rule(
    "grad-read-not-a-term",
    [(Q_LOG_HERE, "retain-graph"), (Q_PENALTY_OR, "create-graph")],
    "earlier",
)
def _grad_read_not_a_term(f):
    """An autograd.grad() call without create_graph freed it, of
    another value than a loss backpropagated now, no new forward and
    nothing stale since, and your code read its gradient, but nothing
    with a graph took in what it made (no term of any loss as it
    stands): a reading (a saliency map logged, a norm printed) keeps
    that call's graph; a penalty made a number by mistake (`.item()`)
    or a loss on gradient norms reads the same, and needs
    create_graph=True."""
    return (
        not f.own_tensor
        and f.grad_without_graph
        and f.grads_read
        and not f.loss
        and not f.new_forward
        and not f.stale
    )


@rule("grad-of-this-loss-read", "one-backward", "earlier")
def _grad_of_this_loss_read(f):
    """An autograd.grad() call without create_graph freed it, taking
    the gradient of the loss this backward starts from, and your code
    read that gradient apart (written into .grad by hand, logged),
    nothing with a graph taking in what it made: no term of this loss
    comes from it, so create_graph would change nothing, and one
    backward of the loss gives the gradient both passes take."""
    return (
        not f.own_tensor
        and f.grad_without_graph
        and f.loss
        and f.grads_read
        and not f.stale
    )


@rule("grad-for-inputs", "create-graph", "earlier")
def _grad_for_inputs(f):
    """An autograd.grad() call without create_graph freed it, taken for
    inputs no optimizer trains: a penalty built from that gradient
    must be differentiated, so the call needs create_graph."""
    return (
        not f.own_tensor
        and f.grad_without_graph
        and not f.grad_inputs_trained
    )


@rule(
    "grad-for-parameters",
    [(Q_PENALTY, "create-graph"), (Q_BOTH, "one-backward")],
    "earlier",
)
def _grad_for_parameters(f):
    """An autograd.grad() call without create_graph freed it, taken for
    parameters an optimizer trains: the gradient is a term of this
    loss (create_graph), or both gradients are wanted from one pass."""
    return not f.own_tensor and f.grad_without_graph and not f.stale


@rule("backward-in-forward", "one-backward", "earlier")
def _backward_in_forward(f):
    """The backward that freed it ran inside a module's forward (a
    hook backpropagating an auxiliary loss), with no step since, and
    the rest of the forward built this loss on what it freed: the
    auxiliary loss belongs in this one. Return or keep it, add it to
    this loss and take out the backward inside the forward. Not where
    your code read the gradients it wrote (an inner step's fast
    weights, a latent moved, a saliency map): an inner loop, not an
    auxiliary loss."""
    return (
        f.in_forward
        and not f.stepped
        and not f.stale
        and not f.grads_read
        and not f.wrote_input_grad
    )


@rule("carried-total", "detach", "total")
def _carried_total(f):
    """An earlier step's loss feeds this one, carried by the same line
    (a running total), and nothing trained is reached only through
    it: each step backpropagates its own loss, and the total, kept
    detached, starts again where one optimizer step's sum ends."""
    return f.loss and f.carried and not f.own_tensor and not f.only


@rule(
    "carried-history",
    [(Q_HISTORY, "retain-graph"), (Q_CUT, "detach")],
    "carried",
)
def _carried_history(f):
    """An earlier step's loss feeds this one, carried by the same line,
    and parameters are reached only through it (a derivative at each
    step of a rollout): reach every earlier step, or stop here."""
    return f.loss and f.carried and not f.own_tensor


@rule("timed-backward", "retain-graph", "timed")
def _timed_backward(f):
    """A timer runs the statement that backpropagates this tensor again
    and again, over the graph its setup built once: the repeat is
    meant, so the statement keeps the graph."""
    return f.timed and f.own_tensor and not f.stale


@rule(
    "loss-again-after-step",
    [(Q_AGAIN, "recompute"), (Q_ONCE, "one-backward")],
    "loss",
)
def _loss_again_after_step(f):
    """A loss backpropagated before is backpropagated again after a
    completed optimizer step changed what made it: another update
    from these inputs (a fresh forward) or one."""
    return f.loss and f.stale and f.stepped


@rule("loss-again-stale", "recompute", "loss")
def _loss_again_stale(f):
    """A loss backpropagated before, stale since inside an optimizer's
    step (a closure) or after a hand-written update: a fresh forward
    for each backward."""
    return f.loss and f.stale


@rule("jacobian-rows", "retain-graph", "earlier")
def _jacobian_rows(f):
    """The same loss backpropagated with other grad_outputs: rows of a
    Jacobian, each a backward of its own through one kept graph."""
    return f.loss and f.other_grad_outputs


@rule(
    "loss-input-grad",
    [(Q_INPUT_GRAD, "create-graph"), (Q_BOTH, "one-backward")],
    "input-grad",
)
def _loss_input_grad(f):
    """A loss backpropagated before, whose backward() wrote a .grad
    into inputs no optimizer trains: the new loss may be built from
    that .grad (a penalty, create_graph) or not (one backward)."""
    return f.loss and f.wrote_input_grad


@rule("loss-cleared-between", "retain-graph", "earlier")
def _loss_cleared_between(f):
    """A loss that feeds this one was backpropagated, and its gradients
    were cleared since: both gradients are wanted apart, each from its
    own backward through one kept graph."""
    return f.loss and f.cleared


@rule(
    "loss-repeated",
    [(Q_SAME_AGAIN, "retain-graph"), (Q_NEW_PASS, "recompute")],
    "loss",
)
def _loss_repeated(f):
    """The same tensor backpropagated again by the same line of your
    code (a loop), nothing changed since: one backward would leave the
    loop nothing to do. The same gradient again (keep the graph), or
    a new forward for each run?"""
    return f.own_tensor and f.repeated


@rule("loss-twice", "one-backward", "earlier")
def _loss_twice(f):
    """A loss backpropagated before, nothing changed since: one
    backward gives both gradients."""
    return f.loss


@rule("unregistered-unowned", "recompute", "register")
def _unregistered_unowned(f):
    """Nothing an optimizer trains is reached through the value, and
    what needs a gradient there is a tensor a module keeps as a plain
    attribute, with requires_grad on: meant to train, never
    registered. Register it, and make the value from it in each
    step."""
    return not f.through and f.unowned and f.unregistered


@rule(
    "reaches-unowned",
    [(Q_SHOULD_TRAIN, "recompute"), (Q_NOT_TRAIN, "detach")],
    "register",
)
def _reaches_unowned(f):
    """Nothing an optimizer trains is reached through the value, but
    tensors that need a gradient and that no optimizer owns are:
    should they train (register them, make the value again) or is the
    value a constant?"""
    return not f.through and f.unowned


@rule("reaches-nothing-trained", "detach", "value")
def _reaches_nothing_trained(f):
    """Nothing that needs a gradient is trained through the value (a
    target, a teacher's output, data made with a graph): detach it."""
    return not f.through


@rule("carried-unchanged", "recompute", "carried")
def _carried_unchanged(f):
    """Carried from an earlier step, and the value itself is still
    held, unchanged: the same line reads it again as it was (a memo, a
    cache a library keeps), where a state would have moved on to a
    newer value built on it. Make it fresh in each step."""
    return f.carried and f.unchanged


@rule("carried-made-once", "recompute", "carried")
def _carried_made_once(f):
    """Carried from an earlier step, and the code that made the value
    has not run again since: made once and read again (a memo, a cache
    a library keeps), not a state rewritten at each step. Make it
    fresh in each step."""
    return f.carried and not f.rebuilt


@rule("carried-same-data", "recompute", "carried")
def _carried_same_data(f):
    """Carried from an earlier step into a forward that takes in only
    what that step took in, unchanged (one batch read at each epoch),
    and taken in by an operation beside that data: the state would
    pass the same data again, where truncated backpropagation carries
    it into the next part of a sequence. Make it fresh in each step."""
    return f.carried and f.same_data


@rule("carried-transformed", "detach", "state")
def _carried_transformed(f):
    """Carried from an earlier step, and each step makes it anew from
    its last value (a recurrent cell, a running average's product),
    not by adding a term to it: the state of truncated
    backpropagation. Not where a parameter is reached only through it
    (a learned first state, trained at the first step only if
    detached: a new pass may need to start from it)."""
    return f.carried and not f.running_sum and not f.only


@rule(
    "carried-state",
    [(Q_STATE, "detach"), (Q_FRESH, "recompute")],
    "carried",
)
def _carried_state(f):
    """The value is carried from an earlier step (the same line made it
    and takes it in, after the backward, or your call feeds it back),
    and each step adds a term to it (a running sum), or a parameter is
    reached only through it (a learned first state): the state of
    truncated backpropagation (detach) or a sum, or a pass, that must
    start fresh (recompute)?"""
    return f.carried


@rule(
    "same-forward-stale-other-model",
    [(Q_OTHER_MODEL, "detach"), (Q_TRAIN_THROUGH, "recompute")],
    "value",
)
def _same_forward_stale_other_model(f):
    """Built in the same forward as the earlier loss, a parameter
    behind the value changed since, this loss trains another
    optimizer's parameters than those behind the value, and the
    earlier loss trained, besides the value, only other optimizers'
    parameters (a GAN's discriminator loss after the generator's step,
    not a shared trunk's second head), or the earlier loss trained no
    optimizer's parameters outside the value and this loss trains
    only a model the earlier backward never reached (a model fed the
    value: an encoder taught on a generator's output, a student on a
    teacher's): a fixed input from that model, or a new one from its
    current weights? Not one backward: the step between gave the
    value's model its update from the earlier loss."""
    return (
        f.order == "same"
        and f.stale
        and f.other_model
        and (f.gan_like or f.fed_apart and not f.earlier_outside)
    )


@rule(
    "same-forward-stale",
    [(Q_AGAIN, "recompute"), (Q_ONCE, "one-backward")],
    "value",
)
def _same_forward_stale(f):
    """Built in the same forward as the earlier loss, and a parameter
    behind the value changed since: another update from these inputs,
    or one backward?"""
    return f.order == "same" and f.stale


@rule(
    "same-forward-input-grad",
    [(Q_INPUT_GRAD, "create-graph"), (Q_BOTH, "one-backward")],
    "input-grad",
)
def _same_forward_input_grad(f):
    """Built in the same forward, and the earlier backward() wrote a
    .grad into inputs no optimizer trains: the new loss may be built
    from it (a penalty)."""
    return f.order == "same" and f.wrote_input_grad


@rule("same-forward-frozen-between", "retain-graph", "earlier")
def _same_forward_frozen_between(f):
    """Built in the same forward as the earlier loss, nothing changed
    since, but parameters that backward trained were switched off
    (requires_grad) before this one: each loss trains its own share,
    which one backward of their sum cannot give. Keep the graph."""
    return f.order == "same" and not f.stale and f.frozen_since


@rule("same-forward-read-apart", "retain-graph", "earlier")
def _same_forward_read_apart(f):
    """Built in the same forward as the earlier loss, whose gradients
    your code read before this backward (copied, flattened), with no
    step between: gradient surgery sets each task's gradient apart,
    cleared or snapshotted to subtract later. One backward of the sum
    would hand it the sum; each backward through one kept graph gives
    what the code reads, and the same .grad where nothing is cleared."""
    return f.order == "same" and f.grads_read and not f.stepped


@rule("one-output-read-apart", "retain-graph", "earlier")
def _one_output_read_apart(f):
    """The backward that freed it ran from the same line of yours as
    this one (a loop), this loss takes in the kept value with no new
    forward (an element of one batched output: a loss per sample),
    and your code read each call's gradients before the next, with no
    step and nothing changed between: a gradient per sample, clipped
    or copied apart (DP-SGD by hand, a Jacobian row by row). One
    backward of the sum would hand it the sum; the loop's backward
    keeps the graph for the next one."""
    return (
        f.same_line
        and not f.new_forward
        and f.grads_read
        and not f.stepped
        and not f.stale
    )


@rule("snapshot-kept", "retain-graph", "earlier")
def _snapshot_kept(f):
    """Your code copied the gradients the earlier backward wrote and
    still holds the copy, with no step between (a snapshot of one
    task's gradient, to subtract from the sum or project against the
    next), nothing the value was made from changed since (a copy
    that moved the weights is a step's: SAM's perturbation), and the
    value is this loss's only way to parameters it trains (a shared
    trunk; a target or a memory beside the model is not): one
    backward of both losses would leave it nothing apart. That
    backward keeps its graph for this one."""
    return f.grads_kept and not f.stepped and not f.stale and f.only


@rule(
    "same-forward-cleared-apart",
    [(Q_OWN_PART, "retain-graph"), (Q_LEFTOVER_CLEAR, "one-backward")],
    "apart",
)
def _same_forward_cleared_apart(f):
    """Built in the same forward as the earlier loss, nothing changed
    since, and your code cleared the .grad that backward wrote into
    some of what this loss reaches, not all (one model's zero_grad()
    between the calls): each loss meant for its own part (a VAE-GAN's
    three losses), which one backward of their sum cannot give, or a
    clear left over where both losses train all they reach? Where
    each loss is meant for its own part, the graph is kept and each
    backward given only its own parameters (inputs=); where the
    earlier loss should treat a value as fixed, a detach there gives
    the same."""
    return f.order == "same" and not f.stale and f.cleared_apart


@rule("same-forward", "one-backward", "earlier")
def _same_forward(f):
    """Built in the same forward as the earlier loss (two losses, or one
    twice): one backward of their sum."""
    return f.order == "same"


@rule("stale-summed-term", "recompute", "value")
def _stale_summed_term(f):
    """Built after the backward, the value stale, not carried, and a
    term the loss adds (loss = other + value, a penalty made once):
    detached, it is a constant that adds nothing to any gradient, so
    the term would train nothing. Make it again in each step. Not
    where this loss trains another optimizer's parameters than those
    behind the value (there it trains them in neither form)."""
    return f.stale and f.summed and not f.other_model


@rule(
    "stale-changed-by-hand",
    [(Q_TARGET, "detach"), (Q_CACHE, "recompute")],
    "value",
)
def _stale_changed_by_hand(f):
    """Built after the backward, the value stale, and parameters an
    optimizer owns behind it changed outside its step() (a
    perturbation, averaged weights copied back): a target (detach) or
    a cached value (recompute)?"""
    return f.stale and f.by_hand


@rule("stale-trained-through", "recompute", "value")
def _stale_trained_through(f):
    """Built after the backward, the value stale, and this loss trains
    another optimizer's parameters than those behind the value, yet
    its own run before, from the same line, trained those through it
    (a step used what it wrote) and no step trained the others since:
    a value to make again for each run (a generator's step on a fake
    that an earlier step consumed; an actor's loss whose step trains
    the actor reads its advantages as inputs, and still asks)."""
    return f.stale and f.other_model and f.retrained


@rule(
    "stale-other-model",
    [(Q_OTHER_MODEL, "detach"), (Q_TRAIN_THROUGH, "recompute")],
    "value",
)
def _stale_other_model(f):
    """Built after the backward, the value stale, and this loss trains
    another optimizer's parameters than those behind the value: a
    fixed input from another model, or should it train that one too?"""
    return f.stale and f.other_model


@rule("stale-cache", "recompute", "value")
def _stale_cache(f):
    """Built after the backward, the value stale, parameters reached
    only through it, and this loss has a forward that trains something
    of its own, or an input the value was made from was replaced: a
    cache to make again."""
    return f.stale and f.only and (f.replaced or f.trains_outside)


@rule("made-from-weights", "recompute", "value")
def _made_from_weights(f):
    """Built after the backward, from a value kept from before it, not
    carried, and computed from parameters alone, compared with nothing
    (a scale exp(log_s), normalized weights, a low-rank product), held
    and read again as it was (a memo, not a state that moved on to a
    newer value built on it), and either stale or taken in by a new
    forward from the line whose last run freed it (a loop): a
    function of the weights, to make again from them in each forward
    (where they have not changed, it gives the same values and the
    same gradients). Not two losses of one pass (one backward), nor
    where this loss trains another optimizer's parameters."""
    return (
        f.order == "after"
        and f.from_weights
        and f.unchanged
        and (f.stale or (f.new_forward and f.same_line))
        and not f.carried
        and not f.other_model
    )


@rule(
    "stale-only-through",
    [(Q_CACHE_NOW, "recompute"), (Q_TARGET_OR, "detach")],
    "value",
)
def _stale_only_through(f):
    """Built after the backward, the value stale, and nothing but the
    value trains here: a cache to make again, or a target from an
    earlier pass (a peer's or a teacher's output)?"""
    return f.stale and f.only


@rule("stale-loss-target", "detach", "value")
def _stale_loss_target(f):
    """Built after the backward, the value stale, no trained parameter
    reached only through it, and it reaches this loss only as the
    target of a loss function, made from data by the parameters the
    loss's input is made from (a cluster assignment sharpened into a
    target, a model's own earlier outputs): detach makes it the
    constant a target is meant to be."""
    return f.stale and f.as_target


@rule(
    "stale-target-or-cache",
    [(Q_TARGET, "detach"), (Q_CACHE, "recompute")],
    "value",
)
def _stale_target_or_cache(f):
    """Built after the backward, the value stale, and no trained
    parameter reached only through it: a target or a cache?"""
    return f.stale


@rule("gan-step", "detach", "earlier")
def _gan_step(f):
    """Built after the backward, the value fresh, and the earlier loss
    trained besides the value only another optimizer's parameters (a
    GAN's discriminator step): detach the value for that backward."""
    return f.only and f.gan_like


@rule("unregistered-left-alone", "recompute", "register")
def _unregistered_left_alone(f):
    """No optimizer owns a leaf here, updates came since and left the
    value's leaves alone, and one is a tensor a module keeps as a plain
    attribute, with requires_grad on: meant to train. Register it, and
    make the value from it in each step."""
    return (
        not f.optimizers
        and f.only
        and f.updates_left_it
        and f.unregistered
    )


@rule(
    "updates-left-it-alone",
    [(Q_LEFT_ALONE, "recompute"), (Q_NOT_TRAIN, "detach")],
    "register",
)
def _updates_left_it_alone(f):
    """No optimizer owns a leaf here, updates came since and left the
    value's parameters alone: should they train (where the updates
    reach them) or are they fixed (labels made from fixed weights)?"""
    return not f.optimizers and f.only and f.updates_left_it


@rule(
    "one-trainer-new-forward",
    [(Q_TARGET, "detach"), (Q_CACHE, "recompute")],
    "value",
)
def _one_trainer_new_forward(f):
    """At most one optimizer trains everything here, and a new forward
    took the kept value in: one backward of the two losses' sum cannot
    be had; a target or a cache?"""
    return f.only and f.one_trainer and f.new_forward


@rule(
    "one-trainer-input-grad",
    [(Q_INPUT_GRAD, "create-graph"), (Q_BOTH, "one-backward")],
    "input-grad",
)
def _one_trainer_input_grad(f):
    """At most one optimizer trains everything here, and the earlier
    backward() wrote a .grad into inputs no optimizer trains: the new
    loss may be built from it (a penalty)."""
    return f.only and f.one_trainer and f.wrote_input_grad


@rule("one-trainer-grad-read", "retain-graph", "earlier")
def _one_trainer_grad_read(f):
    """At most one optimizer trains everything here, and this call is
    autograd.grad() without create_graph=True: it hands its gradients
    back apart and writes no .grad, which one backward of a sum cannot
    do. Keep the earlier call's graph for it."""
    return f.only and f.one_trainer and f.reads_grad


@rule("one-trainer", "one-backward", "earlier")
def _one_trainer(f):
    """At most one optimizer trains everything here, and this loss only
    combines values made before the backward: one pass gives both
    gradients."""
    return f.only and f.one_trainer


@rule(
    "owner-trained-first",
    [(Q_OWNER_ONLY, "detach"), (Q_SHARED, "one-backward")],
    "owner",
)
def _owner_trained_first(f):
    """Parameters reached only through the value, trained by another
    optimizer than this loss's, and the backward that freed it also
    trained, without the value, that optimizer's other parameters (the
    loss of the model that made it: an autoencoder's, before a probe
    on its code): should only that loss train what made the value
    (detach it here), or both, from one forward?"""
    return f.only and f.other_model and f.earlier_owns


@rule(
    "two-trainers",
    [(Q_TRAINED_THERE, "detach"), (Q_SHARED, "one-backward")],
    "earlier",
)
def _two_trainers(f):
    """Parameters reached only through the value, trained by another
    optimizer than this loss's: should the earlier backward train what
    made the value (detach there if not), or both losses, from one
    forward?"""
    return f.only


@rule(
    "passes-of-one-step",
    [(Q_BOTH_PASSES, "one-backward"), (Q_PASS_TARGET, "detach")],
    "passes",
)
def _passes_of_one_step(f):
    """Built after the backward, from an output an earlier pass of the
    same loop made (its code ran again since) that this loss reads
    with no layer run on it (a loss on two consecutive passes'
    outputs), the backward that freed it the same line as this one,
    with no optimizer step since and its gradients not cleared: the
    passes' gradients go into one step, so one backward of their sum
    gives them, unless that output is a target here (a bootstrapped
    value, last batch's soft labels), which detach makes a constant.
    Not recompute: the earlier pass's inputs are gone. A state or a
    memory a layer reads is left to the rules after this one."""
    return (
        f.order == "after"
        and f.same_line
        and f.rebuilt
        and not f.fed_to_layer
        and not f.stepped
        and not f.stale
        and not f.cleared
    )


@rule(
    "fresh-target-or-cache",
    [(Q_TARGET, "detach"), (Q_CACHE, "recompute")],
    "value",
)
def _fresh_target_or_cache(f):
    """Built after the backward, the value fresh, and nothing trained is
    reached only through it: a target or a cache?"""
    return True


# --- checks: a run that goes on, trained wrongly ----------------------


class Check:
    """One row of the checks' table: `holds(finding)` reads CHECKING's
    fields only; `see` is the page that shows the right fix."""

    def __init__(self, name, holds, see):
        self.name, self.holds, self.see = name, holds, see
        self.__doc__ = holds.__doc__


CHECKS = []


def check(name, see):
    """Add the decorated function to the checks' table."""

    def add(holds):
        CHECKS.append(Check(name, holds, see))
        return holds

    return add


def checked(finding):
    """The first check that holds for a finding of the run, or None."""
    seen = _Reading(finding, CHECKING)
    return next((c for c in CHECKS if c.holds(seen)), None)


@check("history-retained", "fix/#wrong-fix-retain-graph-across-steps")
def _history_retained(f):
    """A backward ran the graphs that retain_graph=True kept in several
    earlier steps, and parameters they saved changed since: the graph
    behind the loss grows step after step, and its gradient mixes old
    weights in."""
    return f.stale and f.reruns > 1


@check(
    "stale-retained-graph", "fix/#wrong-fix-retain-graph-across-steps"
)
def _stale_retained_graph(f):
    """A backward ran again a graph kept by retain_graph=True after
    parameters it saved changed (an optimizer's step, fused or not, or
    a write through .data): its gradient comes from their old values,
    and matches neither the weights of the forward nor the new ones."""
    return f.stale


@check(
    "retained-graph-old-inputs",
    "fix/#wrong-fix-retain-graph-across-steps",
)
def _retained_graph_old_inputs(f):
    """A backward ran again a graph kept by retain_graph=True whose
    inputs your program has since replaced with new tensors of their
    shape (an attack's perturbation made anew): the gradient went to
    the old ones, and the ones you hold got none."""
    return f.replaced_inputs


@check(
    "retained-graph-trains-nothing",
    "fix/#wrong-fix-retain-graph-across-steps",
)
def _retained_graph_trains_nothing(f):
    """A backward ran again, after an optimizer step, a graph kept by
    retain_graph=True before it, and wrote gradients only into leaves
    no optimizer trains (a target made once with the model's graph):
    that part of the graph runs at every step for nothing, and their
    .grad grows."""
    return f.untrained


@check("double-backward", "fix/#one-backward")
def _double_backward(f):
    """The same loss backpropagated twice, the first gradients still in
    .grad, and an optimizer step after: that step's gradient counts the
    loss twice."""
    return f.double


@check(
    "gradient-term-adds-nothing",
    "fix/#wrong-fix-create-graph-retain-only",
)
def _gradient_term_adds_nothing(f):
    """A loss summed a term made from a gradient autograd.grad() took
    without create_graph=True: that term has no graph, so it adds
    nothing to any parameter's gradient (a penalty that does not
    penalize)."""
    return f.dead


@check(
    "cut-term-adds-nothing", "fix/#wrong-fix-detach-trainable-source"
)
def _cut_term_adds_nothing(f):
    """A loss added, as a term of a sum, a number cut (detach(), .data,
    no_grad) from parameters an optimizer trains: a constant, it adds
    nothing to their gradient (a penalty detached to silence this
    error penalizes nothing)."""
    return f.cut_term


@check("frozen-by-cut", "fix/#wrong-fix-detach-trainable-source")
def _frozen_by_cut(f):
    """Parameters an optimizer holds reached the loss through a value
    cut from them (detach(), .data, an operation under no_grad), and
    had no gradient at any step: the cut froze them."""
    return f.frozen


@check("stale-cut-value", "fix/#recompute")
def _stale_cut_value(f):
    """A value cut from its graph was made once and read at several
    steps, and a step changed parameters it was cut from since; they
    reached the loss only through it (it is a value of their old
    weights, and they get no gradient from it), or it was computed
    from the weights alone (a norm, a lookup of fixed rows), not
    copied: the loss mixes their old values with the new."""
    return f.stale_cut


@check(
    "backward-trains-nothing", "fix/#wrong-fix-detach-trainable-source"
)
def _backward_trains_nothing(f):
    """A backward() wrote gradients only to parameters an optimizer
    holds, and every time another optimizer stepped and a clear then
    dropped them before any step used them: the loss trains nothing
    (its way to what should train was cut, or no optimizer holds
    that)."""
    return f.unused


@check("loss-trains-the-other-model", "scenarios/gan/#fix-detach-fake")
def _loss_trains_the_other_model(f):
    """A backward() for one model (its optimizer zeroed before it,
    stepped after it) wrote gradients into another model's parameters,
    and that model's optimizer stepped with them, at two runs or more,
    while that model's own loss shares the graph one of the two kept
    with retain_graph=True, has what it writes here dropped by a
    zero_grad(), and points against the leaked part at every run
    (cosine -0.5 or below): a GAN whose discriminator's loss reaches
    the generator through a fake it did not detach."""
    return f.leak


@check(
    "detach-result-unused",
    "command-score/#program-mlnt-fast-weight-grads-not-detached",
)
def _detach_result_unused(f):
    """A line of yours called detach() and never used what it
    returned, at any pass (`x.detach()` as a statement, `g =
    g.detach()` on a loop variable): detach() does not change the
    tensor it is called on, so a backward then ran through the graph
    the detach was meant to cut."""
    return f.detach_unused


@check(
    "state-into-the-same-data",
    "command-score/#program-rnn-walkthrough-hidden-state-carried-across-epochs",
)
def _state_into_the_same_data(f):
    """A state cut from a graph an earlier backward ran (detached so
    that the program runs) entered an operation beside the data, in a
    forward that took in only what the forward that made the state
    took in: each pass over the same data starts from where the last
    one ended (a stateful model fed its own batch again)."""
    return f.same_pass


@check(
    "once-differentiable-gradient",
    "scenarios/custom-function/#once-differentiable",
)
def _once_differentiable_gradient(f):
    """autograd.grad() was asked for a gradient with a graph
    (create_graph=True) and handed back one without: a backward marked
    @once_differentiable ran on the way, under no_grad, given a
    gradient with no graph (at the root of the graph), so a penalty
    made from that gradient trains nothing."""
    return f.once_lost


@check(
    "checkpoint-recomputed-differs",
    "scenarios/checkpoint/#closure-rebound",
)
def _checkpoint_recomputed_differs(f):
    """A non-reentrant checkpoint ran its function again in the
    backward, and what it saved came out with other values than in the
    forward (same shapes: torch checks only those): the function read
    something that changed in between (a variable a loop rebinds, an
    attribute written after the forward, a random operation without
    its RNG state), and the gradient is that of a forward that never
    ran."""
    return f.recomputed_differs


@check("clip-scaled-gradients", "scenarios/amp/#wrong-fix-clip-scaled")
def _clip_scaled_gradients(f):
    """clip_grad_norm_ (or clip_grad_value_) clipped gradients a
    GradScaler's backward had multiplied by its scale, before
    unscale_(): the limit applied to the scaled gradient, so the step
    applies a gradient the scale times smaller than the clip meant."""
    return f.clipped_scaled


@check(
    "penalty-from-scaled-gradients",
    "scenarios/amp/#wrong-fix-penalty-scaled",
)
def _penalty_from_scaled_gradients(f):
    """A loss took in a term computed from the gradients of a
    GradScaler's scaled output (autograd.grad() with create_graph=True)
    never multiplied by 1 / the scale: the term is off by that factor
    (or its square), and moves whenever the scale does."""
    return f.penalty_scaled
