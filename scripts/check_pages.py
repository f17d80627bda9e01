"""`make check PAGE=docs/x.md` and `make check-changed`: the inner loop for a few pages.

Runs pytest on the pages given (or, with --changed, the pages git reports as changed or new
since the last commit, and the pages that show a changed snippet), the changed snippets
themselves (so one that no page shows fails), and the checks that read only the sources
(tests/test_sources.py). A page's process-launching blocks run too: it was asked for by name.
A changed notebook brings its own tests (tests/test_notebook.py, which build the site).
"""

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INCLUDE = re.compile(r'--8<--\s+"(snippets/[^":]+)')
SOURCES = "tests/test_sources.py"


def changed_files() -> list[str]:
    """Files changed, staged or new since the last commit (deleted ones left out)."""
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all", "--no-renames"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return sorted(
        path for path in (line[3:] for line in status.splitlines()) if (ROOT / path).is_file()
    )


def changed_targets() -> list[str]:
    files = changed_files()
    snippets = {f for f in files if f.startswith("snippets/") and f.endswith(".py")}
    pages = {f for f in files if f.startswith("docs/") and f.endswith((".md", ".ipynb"))}
    for page in sorted((ROOT / "docs").rglob("*.md")):
        if snippets & set(INCLUDE.findall(page.read_text(encoding="utf-8"))):
            pages.add(str(page.relative_to(ROOT)))
    return sorted(pages) + sorted(snippets)


def pytest_args(targets: list[str]) -> list[str]:
    missing = [t for t in targets if not (ROOT / t).exists()]
    if missing:
        sys.exit(f"no such page or snippet: {' '.join(missing)}")
    notebooks = [t for t in targets if t.endswith(".ipynb")]
    args = [t for t in targets if not t.endswith(".ipynb")]
    return [*args, SOURCES, *(["tests/test_notebook.py"] if notebooks else [])]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="*", help="pages (docs/x.md) or snippets to check")
    parser.add_argument("--changed", action="store_true", help="the pages git says changed")
    args, extra = parser.parse_known_args()
    targets = args.pages
    if args.changed:
        targets = changed_targets()
        if not targets:
            print("no page or snippet changed since the last commit: source checks only")
    elif not targets:
        parser.error("name a page (docs/x.md), or pass --changed")
    command = [sys.executable, "-m", "pytest", *pytest_args(targets), *extra]
    print(" ".join(["pytest", *command[3:]]), flush=True)
    os.chdir(ROOT)
    os.execv(sys.executable, command)


if __name__ == "__main__":
    main()
