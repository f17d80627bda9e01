"""`--bless`: rewrite a page's Output/Raises fences from what its script actually did.

What it writes, per block showing a whole script, for the torch it runs on:

- a fence (the one that holds on this torch) whose text, with its `...`, still matches the run
  is kept byte for byte; one that does not is replaced by the run's stdout (Output) or the
  traceback's last line (Raises);
- a block with no outcome fence gets them, under it: Output if it printed (an empty Output if
  it finished printing nothing), Raises if it raised; this is how a new page is filled in;
- a raising block's Output fence is dropped when it no longer prints anything, and one is added
  when it starts printing;
- a block documented to raise that now finishes, or documented to finish that now raises, is
  not rewritten: that fails, as does every other problem the harness reports (a script
  leaving state it cannot undo, a missing include, a marker, ...), and so does a block none of
  whose fences holds on this torch. Such changes are made by hand.

A page none of whose fences changed is not written at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .fences import Block, Outcome
from .outcome import flip, leaked, output_matches, raises_matches
from .pages import Site
from .run import Result


@dataclass
class Proposal:
    block: Block
    old: Outcome  # the fences that hold on this torch
    output: str | None
    raises: str | None


@dataclass
class Edits:
    proposals: list[Proposal] = field(default_factory=list)
    written: list[tuple[Path, int, str]] = field(default_factory=list)  # page, block, what


def propose(edits: Edits, block: Block, outcome: Outcome, result: Result) -> str | None:
    """Record what the block's fences should say after `result`; or why that is refused."""
    if result.leaked:
        return leaked(result)
    turned = flip(outcome, result) if outcome.declared else None
    if turned:
        return f"{turned}\n--bless never turns a raise into a pass or back: edit the page by hand"
    old_output = outcome.output.text if outcome.output else None
    old_raises = outcome.raises.text if outcome.raises else None
    output = old_output if output_matches(old_output, result.stdout) else result.stdout
    if result.error is None:
        raises = None
        output = output or ""  # a block that finishes shows an Output, even an empty one
    else:
        raises = old_raises if old_raises and raises_matches(old_raises, result) else None
        raises = raises or result.error.final + "\n"
        output = output or None
    for title, text in (("Output", output), ("Raises", raises)):
        if text and not text.endswith("\n"):
            return f"its {title} does not end with a newline, which a fence cannot show"
        if text and any(line.lstrip().startswith("```") for line in text.split("\n")):
            return f"its {title} has a line starting with ```, which would end the fence"
    edits.proposals.append(Proposal(block, outcome, output, raises))
    return None


def _fence(title: str, text: str, indent: str) -> list[str]:
    body = [indent + line if line else "" for line in text.split("\n")[:-1]]
    return [f'{indent}```text title="{title}"', *body, f"{indent}```"]


def _replacements(p: Proposal) -> list[tuple[int, int, list[str], str]]:
    """(first, end, new lines, what) for each changed part, as 0-based line ranges."""
    block, old = p.block, p.old
    out: list[tuple[int, int, list[str], str]] = []
    for title, fence, text in (("Output", old.output, p.output), ("Raises", old.raises, p.raises)):
        if fence is not None and text is not None and fence.text != text:
            body = _fence(title, text, block.indent)[1:-1]
            out.append((fence.first, fence.last - 1, body, title))
    if old.output is not None and p.output is None:  # the raising block no longer prints
        after = block.fences[block.fences.index(old.output) + 1]  # a Raises follows it
        out.append((old.output.first - 1, after.first - 1, [], "Output removed"))
    elif old.output is None and p.output is not None:
        if old.raises is not None:  # the raising block now prints: above its Raises fences
            at = next(f for f in block.fences if f.title == "Raises").first - 1
            out.append((at, at, [*_fence("Output", p.output, block.indent), ""], "Output added"))
        else:
            added = ["", *_fence("Output", p.output, block.indent)]
            out.append((block.last, block.last, added, "Output added"))
    if old.raises is None and p.raises is not None:  # only a block with no outcome at all
        added = ["", *_fence("Raises", p.raises, block.indent)]
        out.append((block.last, block.last, added, "Raises added"))
    return out


def apply(edits: Edits):
    """Write every page whose fences changed; leave the others untouched."""
    by_page: dict[Path, list] = {}
    for p in edits.proposals:
        for first, end, new, what in _replacements(p):
            by_page.setdefault(p.block.page, []).append((first, end, new, what, p.block.lineno))
    for page, changes in by_page.items():
        lines = page.read_text(encoding="utf-8").split("\n")
        # Bottom up, so that the earlier ranges stay where they were read; at one spot the
        # Raises goes in first, so that the Output lands above it.
        for first, end, new, what, lineno in sorted(
            changes, key=lambda c: (c[0], c[3].startswith("Raises")), reverse=True
        ):
            lines[first:end] = new
            edits.written.append((page, lineno, what))
        page.write_text("\n".join(lines), encoding="utf-8")


def summary(edits: Edits, site: Site) -> str:
    if not edits.written:
        return "--bless: every page already says what its blocks do; nothing written"
    rows = sorted(f"{site.rel(page)}:{line} ({what})" for page, line, what in edits.written)
    return "--bless rewrote:\n  " + "\n  ".join(rows)
