"""Comparing what a run did with what the page says it does.

The comparison is the standard library's doctest.OutputChecker with ELLIPSIS (`...` matches
any text, line breaks included). Two of its leniencies are turned off, because on this site's
pages they would hide a change: it would accept `True` printed where the page says `1` (and
`False` for `0`), and a line of spaces for an empty line, or `<BLANKLINE>` for one.
"""

from __future__ import annotations

import difflib
import doctest

from .fences import Outcome
from .run import Result

CHECKER = doctest.OutputChecker()
OUTPUT = doctest.ELLIPSIS | doctest.DONT_ACCEPT_TRUE_FOR_1 | doctest.DONT_ACCEPT_BLANKLINE
# An error message is wrapped by the page as it likes: runs of whitespace match.
MESSAGE = OUTPUT | doctest.NORMALIZE_WHITESPACE


def output_matches(declared: str | None, stdout: str) -> bool:
    return CHECKER.check_output(declared or "", stdout, OUTPUT)


def raises_matches(declared: str, result: Result) -> bool:
    name, _, message = declared.strip().partition(":")
    error = result.error
    return (
        error is not None
        and error.name == name
        and CHECKER.check_output(message, error.message, MESSAGE)
    )


def flip(outcome: Outcome, result: Result) -> str | None:
    """Why the run ends the other way than the page says (raises or not), or None."""
    if outcome.raises is None and result.error is not None:
        return "documented to succeed, but raised:\n" + result.error.traceback
    if outcome.raises is not None and result.error is None:
        name = outcome.raises.text.strip().partition(":")[0]
        return (
            f"documented to raise {name} (Raises block, line {outcome.raises.first}), "
            "but it finished without raising"
        )
    return None


def mismatch(outcome: Outcome, result: Result) -> str | None:
    """Why the run does not match what the page declares, or None when it does."""
    if result.leaked:
        return leaked(result)
    if outcome.raises is None and result.error is not None:
        return flip(outcome, result)
    declared_out = outcome.output.text if outcome.output else None
    if not output_matches(declared_out, result.stdout):
        if not result.stdout and outcome.output is not None:
            what = "printed nothing"
        elif outcome.output is None:
            what = "printed output the page does not show"
        else:
            what = "printed output differs from the page"
        diff = "".join(
            difflib.unified_diff(
                (declared_out or "").splitlines(True),
                result.stdout.splitlines(True),
                "page",
                "actual",
            )
        )
        line = outcome.output.first if outcome.output else "-"
        return f"{what} (line {line}):\n{diff or result.stdout}"
    if outcome.raises is None:
        return None
    if result.error is None:
        return flip(outcome, result)
    declared_name, _, declared_message = outcome.raises.text.strip().partition(":")
    where = f"(Raises block, line {outcome.raises.first})"
    if result.error.name != declared_name:
        return (
            f"documented to raise {declared_name} {where}, but raised {result.error.name}:\n"
            + result.error.traceback
        )
    if not raises_matches(outcome.raises.text, result):
        return (
            f"raised {declared_name} as documented {where}, but with another message:\n"
            f"  page:   {_squash(declared_message)}\n"
            f"  actual: {_squash(result.error.message)}"
        )
    return None


def leaked(result: Result) -> str:
    return (
        f"it left {', '.join(result.leaked)} changed, which the harness cannot cleanly undo "
        "for the scripts after it; undo it before the script ends"
    )


def _squash(text: str) -> str:
    return " ".join(text.split())
