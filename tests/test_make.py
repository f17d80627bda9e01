"""What `make test` promises about the tree: a run never rewrites it, whatever its outcome, and
only a fully passing run lists its torch in tested-torch-versions.txt (the reference page's
list, outside docs/)."""

import hashlib
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import support
from support import ROOT

SKIPPED = {".venv", "node_modules", "__pycache__", ".pytest_cache", ".cache"}


def tree(project: Path) -> dict[str, str]:
    """Every file of the project copy and its hash; the venv and caches left out."""
    return {
        str(path.relative_to(project)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(project.rglob("*"))
        if path.is_file() and not SKIPPED & set(path.relative_to(project).parts)
    }


def record(*args) -> subprocess.CompletedProcess:
    script = ROOT / "scripts" / "record_tested_version.py"
    return subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, check=True
    )


def test_a_failing_make_test_leaves_the_tree_as_it_was(tmp_path):
    """`make test` with a snippet that no longer does what its page says: pytest fails, make
    stops, and not one file changes, the tested versions included. Lint is skipped (-o lint),
    pytest collects only the broken snippet's page and stops at the first failure (-x): the
    recording step is what is under test, and the whole suite would cost minutes of CPU."""
    project = support.copy_project(
        tmp_path, extra=("tests", "scripts", "Makefile", "pyproject.toml")
    )
    (project / ".venv").symlink_to(sys.prefix)
    # A block of docs/costs.md, the page this run collects.
    snippet = project / "snippets" / "costs" / "workloads.py"
    snippet.write_text('raise ValueError("broken on purpose")\n')
    # Without this torch listed, so that recording it would show as a changed file.
    (project / "tested-torch-versions.txt").write_text("0.0.1\n")
    before = tree(project)

    # Not the outer make's variables: `make test TORCH=2.15.0` exports TORCH, and MAKEFLAGS
    # carries it too; the copy has only .venv.
    outer = ("TORCH", "KEEP_SITE", "MAKEFLAGS", "MFLAGS", "MAKELEVEL")
    env = {k: v for k, v in os.environ.items() if k not in outer}
    env["PYTEST_ADDOPTS"] = "-x -p no:cacheprovider docs/costs.md"
    run = subprocess.run(
        ["make", "-o", ".venv/.ready", "-o", "lint", "test"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
    )
    output = run.stdout + run.stderr
    assert run.returncode != 0, output[-3000:]
    assert "broken on purpose" in output, output[-3000:]
    assert "record_tested_version" not in output, output[-3000:]
    assert tree(project) == before


def test_a_passing_run_adds_its_version_once_and_in_order(tmp_path):
    listed = tmp_path / "tested-torch-versions.txt"
    listed.write_text("2.9.1\n2.13.0\n")
    assert "added" in record("--file", str(listed), "--version", "2.10.0").stdout
    assert "already listed" in record("--file", str(listed), "--version", "2.13.0").stdout
    assert listed.read_text() == "2.9.1\n2.10.0\n2.13.0\n"


def test_the_reference_page_lists_every_tested_version(built_site):
    versions = (ROOT / "tested-torch-versions.txt").read_text().split()
    assert versions, "tested-torch-versions.txt lists no version"
    page = support.soup((built_site / "reference" / "index.html").read_text())
    heading = page.find(id="tested-versions")
    listing = heading.find_next("ul")
    assert [li.get_text(strip=True) for li in listing.find_all("li")] == [
        f"torch {v}" for v in versions
    ]


def test_a_missing_chromium_stops_the_session_once(tmp_path):
    """Browser and PDF checks selected without Chromium: one message and exit status 4 before
    any test runs, not one failure per test; a selection without them is not concerned."""
    env = dict(os.environ, CHROMIUM=str(tmp_path / "no-chromium"))
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    run = subprocess.run(
        [*pytest, "tests/test_browser.py", "tests/test_offline.py"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    output = run.stdout + run.stderr
    assert run.returncode == 4, output[-3000:]
    assert output.count("apt-get install chromium") == 1, output[-3000:]
    assert "passed" not in output and "failed" not in output, output[-3000:]
    other = subprocess.run(
        [*pytest, "tests/test_sources.py::test_every_requirement_is_pinned"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert other.returncode == 0, other.stdout[-3000:]


def test_make_test_prints_the_pdf_on_one_worker():
    """Two workers once printed the PDF into the same folder at once (a broken zip): xdist's
    schedule, as `make test` runs it, makes every PDF check one unit of work, kept in
    collection order (the site's tests last), and any other test a unit of its own."""
    import conftest

    option = SimpleNamespace(loadscopereorder=True)
    config = SimpleNamespace(option=option, getvalue=lambda name: ["2*popen"])
    schedule = conftest.pytest_xdist_make_scheduler(config=config, log=None)
    ids = [
        "docs/costs.md::snippets/costs/workloads.py",
        "tests/test_offline.py::test_pdf_opens_with_pages_and_bookmarks",
        "tests/test_browser.py::test_every_page_loads_without_errors",
        "tests/test_offline.py::test_pages_are_numbered",
    ]
    scopes = [schedule._split_scope(i) for i in ids]
    assert scopes[1] == scopes[3] and len(set(scopes)) == 3, scopes
    assert option.loadscopereorder is False
