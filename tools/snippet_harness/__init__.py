"""pytest plugin: every snippet a page shows ends exactly as the page says it does.

Installed by requirements.txt (`-e ./tools`), it loads through its pytest11 entry point.

A page shows a snippet with a python fence holding one include line, and right under it the
outcome a reader will see, as titled fences:

    ```python
    --8<-- "snippets/scenarios/backward-twice/second_backward_raises.py"
    ```

    ```text title="Raises"
    RuntimeError: Trying to backward through the graph a second time ...
    ```

`title="Output"` is the exact stdout; `title="Raises"` is the final line of the traceback, with
`...` standing for any text (doctest's ELLIPSIS, outcome.py). A block may show both (Output
first). Text that differs between torch releases is one fence per range of releases, titled
with PEP 440 specifiers: `title="Output (torch < 2.15)"`, `title="Output (torch >= 2.15)"`; the
fence that holds on the torch the tests run on is the one checked. That visible text is the
only declaration: there is no hidden marker that could say something else.

One snippet, one test: a fence that shows a whole file is that file's test; the file runs
once, as `python snippets/x/y.py` would run it (run.py, in pytest's own process, isolation.py),
and its tracebacks name its own lines. A fence that shows an excerpt (`--8<-- "x.py:section"`
or `"x.py:3:8"`) is checked to be an unbroken run of lines of a file some page shows whole,
and is not run again. `hl_lines="..."` and `title="..."` may follow ```python.

pytest-codeblocks reads the fences (fences.py); includes are expanded by pymdownx's own
preprocessor with the mkdocs.yml config (pages.py). Every fence or marker against these rules,
and every snippet no page shows whole, is a failing test naming page and line (plugin.py).
`pytest --bless` rewrites the outcome fences from the runs (bless.py); `--no-processes`
deselects the scripts that start processes (processes.py). For other tools:
`snippet_harness.plugin.script_runs(config)`, and `identify.identifying_lines(paths)`: a line
of each snippet that no other snippet has.
"""
