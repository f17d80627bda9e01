"""`make new-scenario NAME=slug`: a scenario page, its snippets, nav entry, table row, link contract.

Everything it writes is a placeholder that fails the suite: the snippets raise
NotImplementedError where the page promises the real error and output, and the tests reject
the word TODO anywhere in the pages or the link contract.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PAGE = """\
---
title: TODO the title readers search for (the error, the model type, "backward twice")
description: >-
  TODO one or two sentences for link previews: the situation, the error, the fix.
---

# TODO the title { #top }

**Symptom.** TODO what the reader's code looks like.

## Reproduce it { #reproduce }

```python
--8<-- "snippets/scenarios/{name}/{module}_raises.py"
```

```text title="Raises"
RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.
```

**Why.** TODO which saved tensor is needed again, and why it is gone.

## Fix: TODO name the fix { #fix-{name} }

```python
--8<-- "snippets/scenarios/{name}/{module}_fixed.py"
```

```text title="Output"
TODO exactly what the fixed script prints
```

**Cost:** TODO memory, time, gradients cut.

## Wrong fix: TODO the tempting one { #wrong-fix }

TODO why it looks right and what it breaks, proven by a snippet.
"""

SNIPPET = """\
import torch

torch.manual_seed(0)
raise NotImplementedError("TODO: {what}")
"""


def main(name: str):
    if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name):
        sys.exit(f"NAME must be a short lowercase slug like gan-training, not {name!r}")
    page = ROOT / "docs" / "scenarios" / f"{name}.md"
    snippets = ROOT / "snippets" / "scenarios" / name
    if page.exists() or snippets.exists():
        sys.exit(f"{page.relative_to(ROOT)} or {snippets.relative_to(ROOT)} already exists")
    module = name.replace("-", "_")
    page.write_text(PAGE.replace("{name}", name).replace("{module}", module))
    snippets.mkdir(parents=True)
    (snippets / f"{module}_raises.py").write_text(
        SNIPPET.format(what="reproduce the error the page shows")
    )
    (snippets / f"{module}_fixed.py").write_text(SNIPPET.format(what="the fix the page shows"))

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

    contract = ROOT / "docs" / "links.yml"
    contract.write_text(
        contract.read_text()
        + f"\n/scenarios/{name}/:\n  top:\n  reproduce:\n"
        + f"  fix-{name}: TODO the fix in one line, as a forum answer would say it\n  wrong-fix:\n"
    )
    print(f"wrote {page.relative_to(ROOT)}, {snippets.relative_to(ROOT)}/, and entries in")
    print("mkdocs.yml, docs/links.yml and docs/scenarios/index.md; `make test` fails until")
    print("every TODO is real.")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make new-scenario NAME=slug")
    main(sys.argv[1])
