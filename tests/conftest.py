"""Fixtures of the tests of the built site: one build per session, one browser per module.

The site is built once per session (`mkdocs build --strict`), and the offline copy (the same
sources with OFFLINE=true: no directory URLs, search from disk) once more when the PDF and
offline checks are selected. Both builds start in a background thread as soon as collection
shows that a selected test needs them, so they run while the snippets and the harness's tests
do; the site's tests run last, once the builds are in. `--keep-site DIR` builds into DIR and
leaves it there, PDF and offline zip included: the site CI publishes.

`make test` runs the tests on two xdist workers (-n 2). The first worker to finish collecting
makes the builds and the tour, into a folder the controller gives every worker; a test on the
other worker waits for the file each one writes when it is done. The phase times are summed
over the workers.

A test module that needs Debian packages says so in REQUIRES; when any of its tests is
selected and a package is missing, the session stops at once with one message naming them
(never skipped, never one failure per test).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

import page_tour
import pytest
import sitekit
import support

# Fixtures that need a build: a selected test that uses one (directly or through another
# fixture) starts the builds when collection ends. The tour of every page in the browser
# (tests/page_tour.py) starts in a process of its own as soon as the site is built.
SITE, OFFLINE, TOUR = "built_site", "offline_site", "tour"


def pytest_addoption(parser):
    parser.addoption(
        "--keep-site",
        type=Path,
        metavar="DIR",
        help="build the site into DIR (emptied first) and leave it there, with the PDF and "
        "the offline zip when the PDF checks run: what CI publishes",
    )


class Builds:
    """The session's builds, made one after the other in a background thread of the worker that
    claimed them (`builder`), each announced by a file in `shared` that any worker can wait for;
    `stop()` ends one still running (a session stopped early, by -x or a failed collection)."""

    def __init__(self, targets, tour: Path | None, shared: Path, builder: bool):
        self.targets = targets  # name: (directory, offline)
        self.shared = shared
        self.tour_result = tour  # where the tour writes its result, if it is wanted
        self.process: subprocess.Popen | None = None
        self.tour_process: subprocess.Popen | None = None
        self.stopped = False
        self.seconds: dict[str, float] = {}  # each build's wall time, and the tour's
        # A snapshot: a snippet that sets a variable while a build starts must not reach it.
        self.env = dict(os.environ)
        self.thread = self.tour_thread = None
        if builder:
            self.thread = threading.Thread(target=self._run, name="site builds", daemon=True)
            self.thread.start()

    def _announce(self, name: str, **result):
        done = self.shared / f"{name}.done"
        done.with_suffix(".part").write_text(json.dumps(result))
        done.with_suffix(".part").rename(done)  # atomic: a reader never sees half of it

    def _run(self):
        for name, (directory, offline) in self.targets.items():
            failed = None
            try:
                shutil.rmtree(directory, ignore_errors=True)
                start = time.monotonic()
                self._build(directory, offline)
                self.seconds[name] = time.monotonic() - start
                if name == SITE and self.tour_result and not self.stopped:
                    self.tour_thread = threading.Thread(
                        target=self._tour, args=(directory,), name="tour", daemon=True
                    )
                    self.tour_thread.start()
            except Exception as error:  # reported by every test that needs this build
                failed = str(error)
                if name == SITE and self.tour_result:
                    self._announce(TOUR, failed="the site build failed: no tour")
            self._announce(name, failed=failed)

    def _tour(self, site: Path):
        """Every page in the browser, in a process of its own (tests/page_tour.py)."""
        start = time.monotonic()
        script = Path(__file__).with_name("page_tour.py")
        self.tour_process = subprocess.Popen(
            [sys.executable, str(script), str(site), str(self.tour_result)],
            cwd=support.ROOT,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        output = self.tour_process.communicate()[0].decode(errors="replace")
        self.seconds[TOUR] = time.monotonic() - start
        failed = self.tour_process.returncode and f"the tour of every page failed:\n{output}"
        self._announce(TOUR, failed=failed or None)

    def _build(self, directory: Path, offline: bool):
        cmd, env = sitekit.build_command(directory, offline, env=self.env)
        if self.stopped:
            raise RuntimeError("the session ended before this build started")
        self.process = subprocess.Popen(
            cmd, cwd=support.ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        output = self.process.communicate()[0].decode(errors="replace")
        if self.process.returncode:
            raise RuntimeError(f"mkdocs build failed:\n{output}")

    def _wait(self, name: str, judge: bool = True):
        done = self.shared / f"{name}.done"
        while not done.is_file():
            if self.stopped:
                pytest.fail(f"the session ended before {name} was made", pytrace=False)
            time.sleep(0.2)
        failed = json.loads(done.read_text())["failed"]
        if failed and judge:
            pytest.fail(failed, pytrace=False)

    def get(self, name: str) -> Path:
        self._wait(name)
        return self.targets[name][0]

    def tour(self) -> "page_tour.Tour":
        self._wait(TOUR)
        return page_tour.load(self.tour_result)

    def tour_over(self):
        """Once the tour (if this session runs one) has ended, however it ended."""
        if self.tour_result is not None:
            self._wait(TOUR, judge=False)

    def stop(self, kill: bool):
        """End the builds: at once when the session was cut short, else after they finish (a
        test on another worker may still be waiting for one)."""
        if kill:
            self.stopped = True
            for process in (self.process, self.tour_process):
                if process and process.poll() is None:
                    process.kill()
        if self.thread:
            self.thread.join(timeout=30 if kill else None)
        if self.tour_thread:  # started by the builds' thread: read once that has ended
            self.tour_thread.join(timeout=30 if kill else None)


BUILDS = pytest.StashKey[Builds]()
PHASES = pytest.StashKey[dict]()
BACKGROUND = pytest.StashKey[dict]()
STARTED = pytest.StashKey[float]()
SHARED = "backward_twice_shared"  # the key of the builds' folder in an xdist worker's input
SHARED_DIR = pytest.StashKey[Path]()  # that folder, in xdist's controller
PHASE_FILE = support.ROOT / "build" / "phase-times.json"
# Where a test's time goes, by the file it comes from: `make test` prints one line per phase.
PHASE_OF = {
    "test_browser.py": "browser",
    "test_offline.py": "PDF and offline copy",
    "test_site.py": "built site",
    "test_diagnose.py": "diagnose command",
    "test_portability.py": "other CPUs' kernels",
}


def _phase(nodeid: str) -> str:
    path = nodeid.split("::")[0]
    if path.startswith(("docs/", "snippets/")):
        return "snippets"
    return PHASE_OF.get(Path(path).name, "other tests")


def pytest_configure(config):
    config.stash[PHASES] = defaultdict(float)
    config.stash[BACKGROUND] = {}


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """xdist's controller: one folder for the builds, shared by every worker."""
    config = node.config
    if SHARED_DIR not in config.stash:
        shared = Path(tempfile.mkdtemp(prefix="backward-twice-site-"))
        config.add_cleanup(lambda: shutil.rmtree(shared, ignore_errors=True))
        config.stash[SHARED_DIR] = shared
    node.workerinput[SHARED] = str(config.stash[SHARED_DIR])


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """xdist's controller: a worker's phase times and builds, for the summary."""
    output = getattr(node, "workeroutput", {})
    for name, seconds in output.get("phases", {}).items():
        node.config.stash[PHASES][name] += seconds
    node.config.stash[BACKGROUND].update(output.get("background", {}))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    start = time.monotonic()
    yield
    item.config.stash[PHASES][_phase(item.nodeid)] += time.monotonic() - start


def pytest_sessionstart(session):
    session.config.stash[STARTED] = time.monotonic()


def pytest_sessionfinish(session, exitstatus):
    config = session.config
    builds = config.stash.get(BUILDS, None)
    if builds:
        cut_short = bool(session.shouldstop or session.shouldfail) or exitstatus in (
            pytest.ExitCode.INTERRUPTED,
            pytest.ExitCode.INTERNAL_ERROR,
        )
        builds.stop(kill=cut_short)
        names = {SITE: "site build", OFFLINE: "offline copy build", TOUR: "tour"}
        config.stash[BACKGROUND].update({names[n]: s for n, s in builds.seconds.items()})
    if hasattr(config, "workeroutput"):
        config.workeroutput["phases"] = dict(config.stash[PHASES])
        config.workeroutput["background"] = config.stash[BACKGROUND]


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """One line per phase: the tests' own time by where they come from (summed over the
    workers), and the builds that ran meanwhile in the background. A whole suite that passed
    also writes its figures to PHASE_FILE, where `make bench` reads them into its history
    (scripts/bench-history.tsv)."""
    phases = config.stash.get(PHASES, {})
    if not phases or hasattr(config, "workerinput"):  # a worker's summary goes nowhere
        return
    write = terminalreporter.write_line
    workers = getattr(config.option, "numprocesses", None) or 1
    write(f"phase times (tests on {workers} worker(s), summed; builds run beside them):")
    for name, seconds in sorted(phases.items(), key=lambda kv: -kv[1]):
        write(f"  phase {name}: {seconds:.0f} s")
    background = config.stash[BACKGROUND]
    for name, seconds in background.items():
        write(f"  background {name}: {seconds:.0f} s")
    whole = config.args_source == pytest.Config.ArgsSource.TESTPATHS and not config.option.keyword
    if whole and not config.option.markexpr and exitstatus == pytest.ExitCode.OK:
        stats = terminalreporter.stats
        PHASE_FILE.parent.mkdir(exist_ok=True)
        PHASE_FILE.write_text(
            json.dumps(
                {
                    "commit": sitekit.commit(),
                    "date": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
                    "load": round(os.getloadavg()[0], 1),
                    "workers": workers,
                    "pytest seconds": round(time.monotonic() - config.stash[STARTED]),
                    "passed": len(stats.get("passed", ())),
                    "failed": len(stats.get("failed", ())) + len(stats.get("error", ())),
                    "phases": {n: round(s) for n, s in phases.items()},
                    "background": {n: round(s) for n, s in background.items()},
                },
                indent=1,
            )
        )


def pytest_collection_modifyitems(session, config, items):
    """Tests of the built site last, in their modules' order: the builds run meanwhile. The
    PDF's module first of those: its print (a minute on one core) then runs beside the other
    worker's browser tests; last, it ran alone while the other worker sat idle."""
    needs = {SITE, OFFLINE, TOUR}

    def order(item):
        site = bool(needs & set(getattr(item, "fixturenames", ())))
        return site, item.nodeid.split("::")[0] not in PRINTS_THE_PDF

    items.sort(key=order)


# A module whose tests must share one worker: its module fixture prints the PDF and the zip
# into the session's site, and two workers doing it at once wrote one broken zip.
PRINTS_THE_PDF = {"tests/test_offline.py"}
ONE_WORKER = set(PRINTS_THE_PDF)
# A module whose tests read one cache: test_diagnose's tables, consoles and checks all run the
# command on the same ~230 reproducers, once a worker (split over two: 65 core-s, one: 47).
ONE_WORKER |= {"tests/test_diagnose.py"}


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """xdist's controller: the tests of ONE_WORKER's modules as one unit of work, any other test
    a unit of its own, in collection order (the site's tests last: sorted by size, xdist's
    default, the PDF's unit went first and waited minutes for the builds). --dist loadgroup
    would group by marks, but xdist 3.8 sets an attribute that pytest 9 no longer reads."""
    from xdist.scheduler import LoadScopeScheduling

    config.option.loadscopereorder = False

    class Schedule(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::")[0]
            return module if module in ONE_WORKER else nodeid

    return Schedule(config, log)


def pytest_collection_finish(session):
    needed = {
        package
        for item in session.items
        for package in getattr(getattr(item, "module", None), "REQUIRES", ())
    }
    missing = support.missing_packages(needed)
    if missing:
        pytest.exit(
            "the selected browser and PDF checks need Debian packages that are missing: "
            f"apt-get install {' '.join(missing)}"
            + (" (or point $CHROMIUM at a Chrome)" if "chromium" in missing else ""),
            returncode=pytest.ExitCode.USAGE_ERROR,
        )
    wanted = {f for item in session.items for f in getattr(item, "fixturenames", ())}
    if not {SITE, OFFLINE, TOUR} & wanted or session.config.option.collectonly:
        return
    shared = getattr(session.config, "workerinput", {}).get(SHARED)
    if shared:
        tmp = Path(shared)
        try:  # the first worker here makes the builds
            (tmp / "builder").mkdir()
            builder = True
        except FileExistsError:
            builder = False
    else:
        tmp, builder = Path(tempfile.mkdtemp(prefix="backward-twice-site-")), True
        session.config.add_cleanup(lambda: shutil.rmtree(tmp, ignore_errors=True))
    keep = session.config.getoption("--keep-site", None)
    targets = {SITE: ((keep.resolve() if keep else tmp / "site"), False)}
    if OFFLINE in wanted:
        targets[OFFLINE] = (tmp / "offline", True)
    tour = tmp / "tour.json" if TOUR in wanted else None
    session.config.stash[BUILDS] = Builds(targets, tour, tmp, builder)


@pytest.fixture(scope="session")
def built_site(pytestconfig) -> Path:
    """The site as `make test` builds it (--strict), built once for every test that reads it."""
    return pytestconfig.stash[BUILDS].get(SITE)


@pytest.fixture(scope="session")
def offline_site(pytestconfig) -> Path:
    """The copy that works opened from disk (OFFLINE=true), built once, after the site."""
    return pytestconfig.stash[BUILDS].get(OFFLINE)


@pytest.fixture(scope="session")
def tour(pytestconfig) -> "page_tour.Tour":
    """Every nav page in Chromium, axe in both colour schemes and the width on a phone: the
    result of the process started once the site was built (tests/page_tour.py)."""
    return pytestconfig.stash[BUILDS].tour()


@pytest.fixture(scope="session")
def tour_over(pytestconfig):
    """For a test that changes the built site: the tour no longer reads it."""
    pytestconfig.stash[BUILDS].tour_over()


@pytest.fixture(scope="session")
def nav(built_site) -> dict[str, support.Page]:
    """Every nav page of the built site, parsed once: {public URL: Page}, in nav order."""
    return support.nav_pages(built_site)


@pytest.fixture(scope="module")
def served_site(built_site):
    """The built site on 127.0.0.1, from a thread of this process: yields its base URL."""
    with sitekit.serve(built_site) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    """The system's Chromium under Playwright, for one module (Playwright's sync API cannot
    stay open across modules that run their own event loop, as the notebook tests do)."""
    with sitekit.browser() as chromium:
        yield chromium
