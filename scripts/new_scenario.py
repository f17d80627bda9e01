"""`make new-scenario NAME=slug RAISES=... FIX=... WRONG_FIX=...`: a scenario page, its three
snippets, a nav entry and a row in the scenarios table; and, with --links, the link contract's
additions for every page, written for review.

    python scripts/new_scenario.py gan-training --raises fake_batch_reused \\
        --fix detach_fake_for_discriminator --wrong-fix retain_graph_leaks_d_loss_into_g
    python scripts/new_scenario.py --links

The snippets are named after what they show (RAISES, FIX, WRONG_FIX: snake_case, two words at
least; the reproducer gets `_raises.py`), and so are the fix's and the wrong fix's heading ids
(`fix-detach-fake-for-discriminator`, `wrong-fix-retain-graph-leaks-d-loss-into-g`). Everything
a human must still write is a placeholder that fails the suite: the snippets raise
NotImplementedError where the page promises real output, and the tests reject the word TODO
anywhere in the pages, mkdocs.yml or the link contract.

--links adds to docs/links.yml every page and heading id of docs/ that it does not list yet,
a fix's id with a TODO where its one-line summary goes, like --bless for outcome fences: read
the diff, write the summaries. It never removes an entry (a published link stays valid).
"""

import argparse
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = ROOT / "docs" / "links.yml"
MESSAGE = (
    "RuntimeError: Trying to backward through the graph a second time (or directly access "
    "saved tensors after they have already been freed). Saved intermediate values of the graph "
    "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you "
    "need to backward through the graph a second time or if you need to access saved tensors "
    "after calling backward."
)
SNIPPET_NAME = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)+")
HEADING_ID = re.compile(r"^#{1,6} .*\{[^}]*#([\w-]+)[^}]*\}\s*$")
FIX_SUMMARY = "TODO the fix in one line, as a forum answer would say it"

PAGE = """\
---
title: TODO the title readers search for (the error, the model type, "backward twice")
description: >-
  TODO at most 160 characters for link previews and search, leading with the fix.
---

# TODO the title { #top }

TODO the symptom in one sentence: what the reader's code looks like, and where it raises.

```python title="Fix: TODO name the fix" hl_lines="1"
--8<-- "snippets/scenarios/{name}/{fix}.py:fix"
```

The whole script, its output and what it costs: [Fix: TODO](#fix-{fix_id}).

## Reproduce it { #reproduce }

```python
--8<-- "snippets/scenarios/{name}/{raises}_raises.py"
```

```text title="Raises"
{message}
```

**Why.** TODO which saved tensor is needed again, and why it is gone.

## Fix: TODO name the fix { #fix-{fix_id} }

```python
--8<-- "snippets/scenarios/{name}/{fix}.py"
```

```text title="Output"
TODO exactly what the fixed script prints: the gradients that train, fresh values
```

**Cost:** TODO memory, time, gradients cut.

## Wrong fix: TODO the tempting one { #wrong-fix-{wrong_fix_id} }

TODO why it looks right, and what it breaks.

```python
--8<-- "snippets/scenarios/{name}/{wrong_fix}.py"
```

```text title="Output"
TODO what shows it is wrong: a gradient that is None or zero, or stale values
```
"""

SNIPPET = """\
import torch

torch.manual_seed(0)
raise NotImplementedError("TODO: {what}")
"""
# The fix's lines that the top of the page shows (3 to 10, the changed ones highlighted).
FIX_SNIPPET = """\
import torch

torch.manual_seed(0)
# --8<-- [start:fix]
raise NotImplementedError("TODO: {what}")
# --8<-- [end:fix]
"""


def scaffold(name: str, raises: str, fix: str, wrong_fix: str):
    if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name):
        sys.exit(f"NAME must be a short lowercase slug like gan-training, not {name!r}")
    for option, value in (("RAISES", raises), ("FIX", fix), ("WRONG_FIX", wrong_fix)):
        if not SNIPPET_NAME.fullmatch(value or ""):
            sys.exit(
                f"{option} must say in snake_case what its snippet shows, two words at least "
                f"(e.g. fake_batch_reused, detach_fake_for_discriminator), not {value!r}"
            )
    raises = raises.removesuffix("_raises")
    page = ROOT / "docs" / "scenarios" / f"{name}.md"
    snippets = ROOT / "snippets" / "scenarios" / name
    if page.exists() or snippets.exists():
        sys.exit(f"{page.relative_to(ROOT)} or {snippets.relative_to(ROOT)} already exists")
    fields = {
        "name": name,
        "raises": raises,
        "fix": fix,
        "wrong_fix": wrong_fix,
        "fix_id": fix.replace("_", "-"),
        "wrong_fix_id": wrong_fix.replace("_", "-"),
        "message": MESSAGE,
    }
    text = PAGE
    for key, value in fields.items():
        text = text.replace("{" + key + "}", value)
    page.write_text(text)
    snippets.mkdir(parents=True)
    for file, what, template in (
        (f"{raises}_raises.py", "reproduce the error the page shows", SNIPPET),
        (f"{fix}.py", "the fix the page shows, printing the gradients it keeps", FIX_SNIPPET),
        (f"{wrong_fix}.py", "the wrong fix, printing what it breaks", SNIPPET),
    ):
        (snippets / file).write_text(template.format(what=what))

    config = ROOT / "mkdocs.yml"
    lines = config.read_text().splitlines(keepends=True)
    start = lines.index("  - Scenarios:\n")
    end = start + 1
    while lines[end].startswith("      - "):
        end += 1
    lines.insert(end, f"      - TODO nav title: scenarios/{name}.md\n")
    config.write_text("".join(lines))

    # The table readers scan to find their case.
    table = ROOT / "docs" / "scenarios" / "index.md"
    lines = table.read_text().splitlines(keepends=True)
    last_row = max(n for n, line in enumerate(lines) if line.startswith("| "))
    lines.insert(last_row + 1, f"| TODO what the reader's code looks like | [TODO]({name}.md) |\n")
    table.write_text("".join(lines))
    print(f"wrote {page.relative_to(ROOT)}, {snippets.relative_to(ROOT)}/ (3 snippets), and")
    print("entries in mkdocs.yml and docs/scenarios/index.md; the suite fails until every TODO")
    print("is real. Once the page's headings are final, `python scripts/new_scenario.py --links`")
    print("adds its ids to docs/links.yml for review.")


def page_url(page: Path) -> str:
    rel = page.relative_to(ROOT / "docs").with_suffix("")
    parts = rel.parts[:-1] if rel.name == "index" else rel.parts
    return "/" + "".join(f"{part}/" for part in parts)


def heading_ids(page: Path) -> list[str]:
    return [m.group(1) for line in page.read_text().splitlines() if (m := HEADING_ID.match(line))]


def bless_links(docs: Path = ROOT / "docs", contract: Path = CONTRACT) -> list[str]:
    """Add each page and heading id the contract does not list; return what was added."""
    lines = contract.read_text().rstrip("\n").split("\n")
    added = []
    for page in sorted(docs.rglob("*.md")):
        ids = heading_ids(page)
        if not ids:  # not a page of its own (an included fragment such as costs/results.md)
            continue
        url = page_url(page)
        key = f"{url}:"
        if key not in lines:
            lines += ["", key]
        at = lines.index(key) + 1
        listed = set()
        while at < len(lines) and lines[at].startswith("  "):
            listed.add(lines[at].strip().split(":")[0])
            at += 1
        missing = [i for i in ids if i not in listed]
        lines[at:at] = [
            f"  {i}: {FIX_SUMMARY}" if i.startswith("fix-") else f"  {i}:" for i in missing
        ]
        added += [f"{url}#{i}" for i in missing]
    if added:
        contract.write_text("\n".join(lines) + "\n")
    return added


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", nargs="?", help="the page's slug, e.g. gan-training")
    # `make new-scenario NAME=x RAISES=...` passes them on in the environment.
    parser.add_argument("--raises", default=os.environ.get("RAISES"))
    parser.add_argument("--fix", default=os.environ.get("FIX"))
    parser.add_argument("--wrong-fix", default=os.environ.get("WRONG_FIX"))
    parser.add_argument("--links", action="store_true", help="add missing ids to docs/links.yml")
    args = parser.parse_args()
    if args.links:
        added = bless_links()
        print("docs/links.yml: added " + (", ".join(added) if added else "nothing"))
    elif args.name:
        scaffold(args.name, args.raises, args.fix, args.wrong_fix)
    else:
        parser.error("a NAME, or --links")


if __name__ == "__main__":
    main()
