"""The report: the facts as they are, the rule that decided, and the
verdict (the fix, where to apply it, and the page that explains it)."""

from .facts import read
from .rules import APPLY, decide
from .watching import _chain, _line, _made, _name, _where, _yours

SITE = "https://backward-twice.github.io/"
# The report when the error comes from reading a saved tensor.
OUTSIDE = [
    "freed_graph_report: raised outside backward() and autograd.grad()",
    "a saved tensor read after the backward that freed it "
    "(grad_fn._saved_*, ctx.saved_tensors): read it before that "
    "backward",
    f"see: {SITE}scenarios/saved-tensors-after-backward/"
    "#fix-read-before-backward",
]
# How the graph being backpropagated relates to the freeing backward.
_ORDER = {
    "same": "built before that backward (the same forward)",
    "after": "built after that backward, from a value kept from "
    "before it",
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
        if isinstance(rule.fix, str):
            apply = APPLY[f"{rule.fix} {rule.where}"].format(**said)
            return [
                f"fix: {rule.fix}",
                f"  {apply}",
                f"see: {SITE}fix/#{rule.fix}",
            ]
        names = " or ".join(rule.families())
        out = [f"fix: {names} (the facts do not decide)"]
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
            "already backpropagated"
        ] + _at("made at", node, now)
    user, node = f.crossings[0]
    out = [
        f"reused:   a value ({_name(node)}) that an earlier "
        "backward went through"
    ]
    out += _at("made at", node, now) + _at("used at", user, now)
    held = " and ".join(f.holders[:3]) or (
        "nothing your program reaches: only the graph"
    )
    out.append(f"  held in  {held}")
    more = {_chain(n) for _, n in f.crossings} - {_chain(node)}
    if more:
        n = len(more)
        out.append(f"  and {n} more {'values' if n > 1 else 'value'}")
    return out


def _freed_by(f):
    """The backward that freed it, and what happened since."""
    by = f.freed_by
    mine = _yours(by.site)
    at = _line(mine[-1]) if mine else "library code"
    out = [f"freed by: {at}"]
    later = f.calls_after
    ago = (
        f"{later + 1} calls before this one"
        if later
        else "the call before this one"
    )
    caller = f", called by {by.by}" if by.by else ""
    out.append(f"  {by.kind}{caller}, {ago}")
    if f.caller:
        out.append(f"  this backward: called by {f.caller}")
    if f.recorded and f.input_names:
        names = _shorten(f.input_names)
        out.append(
            f"  wrote .grad into: {names} (owned by no optimizer)"
        )
    if f.recorded and f.order:
        out.append(f"order:    {_ORDER[f.order]}")
    out.append(f"since:    {_steps_since(f)}")
    return out


def _reached(f):
    """What this backward trains through the value, and without it."""
    out = []
    if f.only:
        out.append(
            f"only through it: {_shorten(f.only_names)} (detaching it "
            "leaves them no gradient)"
        )
    elif not f.through:
        out.append("through it: nothing an optimizer trains")
    if f.unowned:
        out.append(
            f"  and owned by no optimizer: {_shorten(f.unowned_names)}"
        )
    if f.order == "after":
        out.append(
            f"outside it: {_shorten(f.outside_names)} (this loss "
            "trains them without the value)"
            if f.outside_names
            else "outside it: nothing an optimizer trains"
        )
    return out


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
    line = _line_of(f.freed_line, f.this_line)
    yours = f.freed_by.by is None
    return {
        "value": f.holders[0].split(" in ")[0]
        if f.holders
        else "the value",
        "names": _shorten(f.only_names or f.unowned_names, 2),
        "inputs": _shorten(f.input_names, 2),
        "package": f.freed_by.by or f.caller,
        "line": line,
        "your_line": line if yours else _line_of(None, f.this_line),
    }


def _line_of(freed_line, this_line):
    """`line N` for a call of yours; else this call's line."""
    line = freed_line or this_line
    return f"line {line}" if line else "the earlier call"


def _count(n, noun):
    return f"{n} {noun}{'s' if n > 1 else ''}"


def _at(label, node, now):
    made, via = _where(_made(node), now)
    if made is None:
        return [f"  {label}  line unknown: made before watching began"]
    return [f"  {label}  {_line(made)}"] + (
        [f"      via  {_line(via)}"] if via else []
    )


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
