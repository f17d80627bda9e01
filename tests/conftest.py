"""Fixtures of the tests of the built site: one build per session, one browser per module.

A test module that needs Debian packages says so in REQUIRES; when any of its tests is
selected and a package is missing, the session stops at once with one message naming them
(never skipped, never one failure per test).
"""

from pathlib import Path

import pytest
import sitekit  # tools/, on pytest's pythonpath
import support


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


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The site as `make test` builds it (--strict), built once for every test that reads it."""
    out = tmp_path_factory.mktemp("site")
    sitekit.build(out)
    return out


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
