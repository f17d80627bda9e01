"""A pytest plugin for `make bench` only: writes each snippet script's own run time as JSON.

Loaded with `-p bench_timings` (scripts/ on PYTHONPATH); the file is $BENCH_TIMINGS. The numbers
come from the harness: snippet_harness.plugin.script_runs(config) -> [{"script", "seconds"}].
"""

import json
import os
from pathlib import Path


def _script_runs(config) -> list[dict]:
    try:
        from snippet_harness.plugin import script_runs
    except ImportError:
        # The single-module harness (tests/snippet_harness.py) until its package replaces it.
        import snippet_harness

        site = config.stash[snippet_harness.SCRIPT_KEY]
        return [{"script": key[1], "seconds": r.seconds} for key, r in site.results.items()]
    return script_runs(config)


def pytest_sessionfinish(session, exitstatus):
    target = os.environ.get("BENCH_TIMINGS")
    if target:
        Path(target).write_text(json.dumps(_script_runs(session.config), indent=1))
