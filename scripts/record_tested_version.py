"""`make test`, after the whole suite passed: list this venv's torch in tested-torch-versions.txt
and write what it prints where releases differ to docs/releases/torch-<version>.json.

Run only when pytest exited 0 on everything (make stops at a failing command), so no test run,
passing or failing, writes anything: a version is added here, and taken off by hand when it
stops passing. The reference page shows both (overrides/hooks/build_facts.py): the list, and
the table of what changed between the listed releases, from scripts/release_facts.py.
"""

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def version_key(version: str):
    return [int(part) if part.isdigit() else part for part in version.split(".")]


def record(path: Path, version: str) -> bool:
    """Add `version` to the list in `path`, kept sorted; True if the file changed."""
    listed = path.read_text(encoding="utf-8").split() if path.exists() else []
    if version in listed:
        return False
    ordered = sorted({*listed, version}, key=version_key)
    path.write_text("".join(f"{v}\n" for v in ordered), encoding="utf-8")
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, default=ROOT / "tested-torch-versions.txt")
    parser.add_argument(
        "--version",
        help="default: the torch this Python imports, whose facts are then written too",
    )
    args = parser.parse_args()
    version = args.version
    if version is None:
        import release_facts  # scripts/, next to this file

        version = release_facts.version()
        print(f"{release_facts.write().relative_to(ROOT)}: what torch {version} prints")
    changed = record(args.file, version)
    print(f"{args.file.name}: torch {version} {'added' if changed else 'already listed'}")


if __name__ == "__main__":
    sys.exit(main())
