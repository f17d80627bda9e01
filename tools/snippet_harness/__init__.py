"""pytest plugin: every python block on a page ends exactly as the page says it does.

Load it with `-p snippet_harness.plugin` (pyproject.toml does, with "tools" on pythonpath).

A page shows a snippet with a bare python fence holding an include line, and right under it the
outcome a reader will see, as titled fences:

    ```python
    --8<-- "snippets/scenarios/backward-twice/second_backward_raises.py"
    ```

    ```text title="Raises"
    RuntimeError: Trying to backward through the graph a second time ...
    ```

`title="Output"` is the exact stdout; `title="Raises"` is the final line of the traceback, with
`...` standing for any text. A block may show both (Output first). That visible text is the only
declaration: there is no hidden marker that could say something else.

pytest-codeblocks finds the fences and their line numbers (fences.py). Everything it would get
wrong is handled here: includes are expanded by pymdownx's own preprocessor with the mkdocs.yml
config (pages.py), code runs as `python snippet.py` would run it (run.py, isolation.py), the
original exception is checked, type and message (outcome.py), and every fence the engine would
silently skip or run for real, every marker, and every unused snippet is a failing test naming
page, line and snippet (plugin.py). `pytest --bless` rewrites the outcome fences from the runs
(bless.py). For other tools: `snippet_harness.plugin.script_runs(config)`.

Isolation: every script runs in pytest's own process, which puts back after it what it changed
(isolation.py), rather than in a fork of that process per script, which would need nothing put
back. Measured (scripts/bench_isolation.py, numbers in run.py), forking costs each script
again what one process pays once, and took the suite past its time target; run.py says so.
"""
