"""A pytest plugin for `make bench` only: writes each snippet script's own run time as JSON.

Loaded with `-p bench_timings` (scripts/ on PYTHONPATH); the file is $BENCH_TIMINGS. The numbers
come from the harness: snippet_harness.plugin.script_runs(config) -> [{"script", "seconds"}].
"""

import json
import os
from pathlib import Path

from snippet_harness.plugin import script_runs


def pytest_sessionfinish(session, exitstatus):
    target = os.environ.get("BENCH_TIMINGS")
    if target:
        Path(target).write_text(json.dumps(script_runs(session.config), indent=1))
