"""What identifies each snippet in printed text: lines of it that no other snippet contains (for
the PDF's check that every snippet is printed, where a first line proves little: nearly every
snippet starts with `import torch`)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

SHORTEST = 20  # characters: a shorter line is too likely to appear in other text
FITS = 60  # characters: a longer code line may wrap on the printed page


def identifying_lines(snippets: list[Path]) -> dict[Path, str | None]:
    """For each snippet, the first of its lines (stripped) that is in no other snippet, not even
    as part of a line; where there is none, the first two (or more) consecutive non-blank lines
    that no other snippet has together, joined by a newline. None for a snippet that only
    repeats others. Whitespace does not count: compare with runs of it squashed to one space,
    as text taken from a PDF needs."""
    lines = {p: _lines(p) for p in snippets}
    squashed = {p: _squash(" ".join(lines[p])) for p in snippets}
    # Every file once (a link to the same file, a shared helper shown in two folders, is not
    # another), in one text: a run is in another snippet when that text holds it more often
    # than the snippet itself does (no run spans the separator).
    files = {p.resolve(): squashed[p] for p in snippets}
    everything = "\0".join(files.values())
    # A line that another file has whole is not its own: known without searching the text
    # (most lines asked about are imports and seeds that every snippet has).
    lines_of = {p: Counter(map(_squash, lines[p])) for p in snippets}
    whole = Counter()
    for p in {p.resolve(): p for p in snippets}.values():
        whole.update(lines_of[p])

    def elsewhere(p: Path, run: str) -> bool:
        text = _squash(run)
        if "\n" not in run and whole[text] > lines_of[p][text]:
            return True
        return everything.count(text) != squashed[p].count(text)

    found: dict[Path, str | None] = {}
    for p in snippets:
        runs = (
            run
            for size in range(1, len(lines[p]) + 1)
            for start in range(len(lines[p]) - size + 1)
            if len(run := "\n".join(lines[p][start : start + size])) >= SHORTEST
            and not elsewhere(p, run)
        )
        # The PDF's text keeps a code line whole when it fits the page and has no comment
        # (it may give a comment away from its line): the first such run, else the first.
        first = None
        for run in runs:
            first = first or run
            if all(len(line) <= FITS and "#" not in line for line in run.split("\n")):
                first = run
                break
        found[p] = first
    return found


def _lines(path: Path) -> list[str]:
    """Its non-blank lines, stripped, as a page shows it whole: without section markers."""
    text = path.read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and "8<-" not in line]


def _squash(text: str) -> str:
    return " ".join(text.split())
