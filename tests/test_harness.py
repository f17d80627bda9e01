"""The harness must fail, loudly and precisely, whenever a page and its code disagree."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch
from snippet_harness.plugin import TORCH, share_the_cores

MKDOCS_YML = """\
site_name: harness test
markdown_extensions:
  - pymdownx.snippets:
      base_path: ["."]
      check_paths: true
      dedent_subsections: true
"""

RAISES_VALUE_ERROR = """\
print("about to fail")
raise ValueError("the saved tensor is gone")
"""


class Project:
    """A throw-away MkDocs project: pages, snippets and one inner pytest run of the harness."""

    def __init__(self, pytester):
        self.pytester = pytester
        pytester.makefile(".yml", mkdocs=MKDOCS_YML)
        pytester.makeini("[pytest]\ntestpaths = docs snippets\n")
        (pytester.path / "docs").mkdir()

    def snippet(self, name, code):
        path = self.pytester.path / "snippets" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(code), encoding="utf-8")

    def page(self, text, name="page.md"):
        (self.pytester.path / "docs" / name).write_text(textwrap.dedent(text), encoding="utf-8")

    def run(self, *args):
        return self.pytester.runpytest(*args)

    def read(self, name="page.md"):
        return (self.pytester.path / "docs" / name).read_text(encoding="utf-8")


def fence(lexer_and_title, body):
    return f"```{lexer_and_title}\n{textwrap.dedent(body).rstrip()}\n```\n"


def include(name):
    return fence("python", f'--8<-- "snippets/{name}"')


@pytest.fixture
def project(pytester):
    return Project(pytester)


def test_declared_error_and_output_pass(project):
    project.snippet("a/fails.py", RAISES_VALUE_ERROR)
    project.snippet("a/works.py", 'print("fixed")\n')
    project.page(
        include("a/fails.py")
        + "\n"
        + fence('text title="Output"', "about to fail")
        + "\n"
        + fence('text title="Raises"', "ValueError: the saved ... gone")
        + "\nThe fix:\n\n"
        + include("a/works.py")
        + "\n"
        + fence('text title="Output"', "fixed")
    )
    result = project.run("-v")
    # One test per snippet: the page's blocks are the scripts' tests.
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        ["*docs/page.md::snippets/a/fails.py PASSED*", "*docs/page.md::snippets/a/works.py PASSED*"]
    )


def page_raising(project, declared):
    project.page(
        include("a/snippet.py")
        + "\n"
        + fence('text title="Output"', "about to fail")
        + "\n"
        + fence('text title="Raises"', declared)
    )


def test_snippet_that_stops_raising_fails(project):
    project.snippet("a/snippet.py", 'print("about to fail")\n')
    page_raising(project, "ValueError: the saved tensor is gone")
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*docs/page.md:1 (snippets/a/snippet.py): documented to raise ValueError "
            "(Raises block, line 9), but it finished without raising*"
        ]
    )


def test_other_type_with_same_message_fails(project):
    project.snippet("a/snippet.py", RAISES_VALUE_ERROR.replace("ValueError", "TypeError"))
    page_raising(project, "ValueError: the saved tensor is gone")
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*documented to raise ValueError*but raised TypeError*"])


def test_other_message_fails(project):
    project.snippet("a/snippet.py", RAISES_VALUE_ERROR.replace("gone", "still here"))
    page_raising(project, "ValueError: the saved tensor is gone")
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*raised ValueError as documented*but with another message:",
            "*page:   the saved tensor is gone",
            "*actual: the saved tensor is still here",
        ]
    )


def test_the_original_exception_is_checked_not_a_wrapper(project):
    # A runner that wraps what the script raised (as pytest-codeblocks' own does, in a
    # RuntimeError) would accept it as one.
    project.snippet("a/snippet.py", RAISES_VALUE_ERROR)
    page_raising(project, "RuntimeError: ...")
    project.run().stdout.fnmatch_lines(["*documented to raise RuntimeError*but raised ValueError*"])


def test_changed_output_fails_with_a_diff(project):
    project.snippet("a/snippet.py", 'print("x.grad = 12.0")\n')
    project.page(include("a/snippet.py") + "\n" + fence('text title="Output"', "x.grad = 6.0"))
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*printed output differs from the page (line 5):", "-x.grad = 6.0", "+x.grad = 12.0"]
    )


def test_printed_output_the_page_does_not_show_fails(project):
    project.snippet("a/snippet.py", RAISES_VALUE_ERROR)
    project.page(
        include("a/snippet.py")
        + "\n"
        + fence('text title="Raises"', "ValueError: the saved tensor is gone")
    )
    project.run().stdout.fnmatch_lines(
        ["*printed output the page does not show*", "*about to fail*"]
    )


def test_unexpected_error_shows_the_snippet_file_and_line(project):
    project.snippet("a/snippet.py", 'x = 1\nprint("fine")\nundefined_name\n')
    project.page(include("a/snippet.py") + "\n" + fence('text title="Output"', "fine"))
    result = project.run()
    result.assert_outcomes(failed=1)
    # The traceback starts in the script, as `python` prints it, not in the harness.
    result.stdout.fnmatch_lines(
        [
            "*documented to succeed, but raised:",
            '  File "*snippets/a/snippet.py", line 3, in <module>',
            "NameError*",
        ]
    )
    assert "snippet_harness" not in result.stdout.str()


def test_missing_include_fails_naming_page_line_and_snippet(project):
    project.page("Intro.\n\n" + include("a/nowhere.py") + "\n" + fence('text title="Output"', "hi"))
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*docs/page.md:3: include failed: "
            "Snippet at path 'snippets/a/nowhere.py' could not be found*"
        ]
    )


def test_missing_section_fails(project):
    project.snippet("a/snippet.py", 'print("hi")\n')
    project.page(
        fence("python", '--8<-- "snippets/a/snippet.py:nosuch"')
        + "\n"
        + fence('text title="Output"', "hi")
    )
    project.run().stdout.fnmatch_lines(
        ["*docs/page.md:1: include failed: Snippet section 'nosuch'*"]
    )


def test_block_without_declared_outcome_fails(project):
    project.snippet("a/snippet.py", 'print("hi")\n')
    project.page(
        "# Title\n\n" + include("a/snippet.py") + "\nSome prose.\n\n" + fence("text", "hi")
    )
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*docs/page.md:3 (snippets/a/snippet.py): no declared outcome*"])


@pytest.mark.parametrize(
    "marker",
    [
        "<!--pytest.mark.skip-->",
        "<!--pytest-codeblocks:expected-output-->",
        "<!--pytest-codeblocks:nonsense-->",
        "<!-- - - pytest-codeblocks:expected-output -->",
        # pytest-codeblocks' reader would return nothing at all for the page.
        "<!--pytest-codeblocks:skipfile-->",
    ],
)
def test_markers_fail_and_hide_nothing(project, marker):
    project.snippet("a/snippet.py", 'print("changed")\n')
    project.page(
        marker + "\n" + include("a/snippet.py") + "\n" + fence('text title="Output"', "hi")
    )
    result = project.run()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines([f"*docs/page.md:1: marker '{marker}'*"])
    result.stdout.fnmatch_lines(["*printed output differs from the page*"])


def test_unknown_outcome_title_fails(project):
    project.snippet("a/snippet.py", 'print("hi")\n')
    project.page(include("a/snippet.py") + "\n" + fence('text title="Ouptut"', "hi"))
    project.run().stdout.fnmatch_lines(
        ["*docs/page.md:5: unknown outcome title 'Ouptut' under the python block at line 1*"]
    )


def test_outcome_away_from_its_block_fails(project):
    project.snippet("a/snippet.py", 'print("hi")\n')
    project.page(
        include("a/snippet.py")
        + "\n"
        + fence('text title="Output"', "hi")
        + "\nProse.\n\n"
        + fence('text title="Raises"', "ValueError: x")
    )
    project.run().stdout.fnmatch_lines(
        ['*docs/page.md:11: title="Raises" fence is not directly under*']
    )


def test_raises_block_must_name_the_exception(project):
    project.snippet("a/snippet.py", RAISES_VALUE_ERROR)
    project.page(include("a/snippet.py") + "\n" + fence('text title="Raises"', "... gone"))
    project.run().stdout.fnmatch_lines(
        ["*docs/page.md:5: Raises block must start with the exception's name*"]
    )


@pytest.mark.parametrize(
    ("opening", "why"),
    [
        ("```py", "Python on this site is a ```python fence"),
        ("```pycon", "Python on this site is a ```python fence"),
        ("```{ .python }", "Python on this site is a ```python fence"),
        ('```{ .python title="x" }', "Python on this site is a ```python fence"),
        ("```{.py}", "Python on this site is a ```python fence"),
        ("``` .python3", "Python on this site is a ```python fence"),
        ('```python linenums="1"', "Python on this site is a ```python fence"),
        ("~~~python", "~~~ fence"),
    ],
)
def test_python_the_tests_would_not_run_fails(project, opening, why):
    project.snippet("a/snippet.py", 'print("hi")\n')
    closing = "~~~" if opening.startswith("~") else "```"
    project.page(
        f'Text.\n\n{opening}\n--8<-- "snippets/a/snippet.py"\n{closing}\n\n'
        + include("a/snippet.py")
        + "\n"
        + fence('text title="Output"', "hi")
    )
    result = project.run()
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines([f"*docs/page.md:3: *{why}*"])


def test_code_typed_on_the_page_fails(project):
    project.snippet("a/helper.py", 'print("helped")\n')
    project.page(
        fence("python", 'x = 1\n--8<-- "snippets/a/helper.py"')
        + "\n"
        + fence("python", "print('typed, untested')")
        + "\n"
        + include("a/helper.py")
        + "\n"
        + fence('text title="Output"', "helped")
    )
    result = project.run()
    result.assert_outcomes(failed=2, passed=1)
    result.stdout.fnmatch_lines(
        [
            "*docs/page.md:1: a python fence shows one snippet file and nothing else*",
            "*docs/page.md:6: a python fence shows one snippet file and nothing else*",
        ]
    )


def test_hl_lines_and_a_title_may_follow_python(project):
    project.snippet("a/snippet.py", 'x = 1\nprint("hi")\n')
    project.page(
        fence('python hl_lines="2" title="snippet.py"', '--8<-- "snippets/a/snippet.py"')
        + "\n"
        + fence('text title="Output"', "hi")
    )
    project.run().assert_outcomes(passed=1)


def test_hl_lines_past_the_end_fail(project):
    project.snippet("a/snippet.py", 'x = 1\nprint("hi")\n')
    project.page(
        fence('python hl_lines="2 3"', '--8<-- "snippets/a/snippet.py"')
        + "\n"
        + fence('text title="Output"', "hi")
    )
    project.run().stdout.fnmatch_lines(
        ['*docs/page.md:1: hl_lines="2 3" names a line the block does not have: it shows 2*']
    )


def test_unclosed_fence_names_its_opening_line(project):
    project.page("Text.\n\n```text\nhi\n```\n\n```python\nprint('hi')\n")
    project.run().stdout.fnmatch_lines(["*docs/page.md:7: this fence is never closed*"])


def test_snippet_no_page_uses_fails(project):
    project.snippet("a/orphan.py", 'print("hi")\n')
    project.page("Nothing here.\n")
    project.run().stdout.fnmatch_lines(["*snippets/a/orphan.py:1: no page shows this snippet*"])


def test_a_module_of_a_package_is_shown_not_run(project):
    # A part of a program the scripts import: run as a script, this one would fail.
    project.snippet("a/tool/__init__.py", "from .part import VALUE\n")
    project.snippet("a/tool/part.py", 'VALUE = 3\nraise SystemExit("not a script")\n')
    project.page(include("a/tool/__init__.py") + "\n" + include("a/tool/part.py"))
    result = project.run("-v")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*docs/page.md::snippets/a/tool/part.py PASSED*"])


def test_a_module_of_a_package_declares_no_outcome(project):
    project.snippet("a/tool/__init__.py", "VALUE = 3\n")
    project.page(include("a/tool/__init__.py") + "\n" + fence('text title="Output"', "3"))
    project.run().stdout.fnmatch_lines(
        ["*docs/page.md:1 (snippets/a/tool/__init__.py): a module of a package is imported, not*"]
    )


def test_a_module_no_page_shows_fails(project):
    project.snippet("a/tool/__init__.py", "VALUE = 3\n")
    project.snippet("a/tool/part.py", "VALUE = 4\n")
    project.page(include("a/tool/__init__.py"))
    project.run().stdout.fnmatch_lines(["*snippets/a/tool/part.py:1: no page shows this snippet*"])


def test_snippet_shown_only_in_excerpts_fails_once(project):
    project.snippet("a/parts.py", '# --8<-- [start:fix]\nprint("hi")\n# --8<-- [end:fix]\n')
    project.page(fence("python", '--8<-- "snippets/a/parts.py:fix"'))
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*docs/page.md:1: an excerpt of snippets/a/parts.py, which no page shows whole*"]
    )
    alone = project.run("snippets/a/parts.py")
    alone.assert_outcomes(failed=1)
    alone.stdout.fnmatch_lines(["*snippets/a/parts.py:1: pages show only excerpts of it*"])


SECTIONED = """\
import sys

# --8<-- [start:fix]
values = [1, 2, 3]
print(sum(values))
# --8<-- [end:fix]
sys.exit("the rest of the script fails")
"""


def whole_and_excerpt(project, excerpt):
    return (
        fence("python", f'--8<-- "snippets/a/sectioned.py:{excerpt}"')
        + "\nThe whole script:\n\n"
        + include("a/sectioned.py")
        + "\n"
        + fence('text title="Output"', "6")
        + "\n"
        + fence('text title="Raises"', "SystemExit: the rest of the script fails")
    )


@pytest.mark.parametrize("excerpt", ["fix", "4:5"])
def test_an_excerpt_of_a_tested_script_is_checked_not_run(project, excerpt):
    # Run alone, the excerpt would print the same 6, and not raise.
    project.snippet("a/sectioned.py", SECTIONED)
    project.page(whole_and_excerpt(project, excerpt))
    result = project.run("-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*docs/page.md::snippets/a/sectioned.py PASSED*"])


def test_an_excerpt_must_be_one_run_of_lines(project):
    project.snippet("a/sectioned.py", SECTIONED)
    project.page(whole_and_excerpt(project, "1:1,4:5"))
    project.run().stdout.fnmatch_lines(
        ["*docs/page.md:1: what it shows (:1:1,4:5) is not one unbroken run of lines*"]
    )


def test_an_excerpt_declares_no_outcome(project):
    project.snippet("a/sectioned.py", SECTIONED)
    project.page(
        fence("python", '--8<-- "snippets/a/sectioned.py:fix"')
        + "\n"
        + fence('text title="Output"', "6")
        + "\n"
        + whole_and_excerpt(project, "fix")
    )
    project.run().stdout.fnmatch_lines(
        ["*docs/page.md:1: an excerpt is not run, so it has no outcome of its own*"]
    )


def test_errors_point_at_the_snippet_file_line_sections_included(project):
    project.snippet("a/sectioned.py", SECTIONED.replace("sum(values)", "sum(valuez)"))
    project.page(include("a/sectioned.py") + "\n" + fence('text title="Output"', "6"))
    project.run().stdout.fnmatch_lines(
        ['*File "*snippets/a/sectioned.py", line 5*', "NameError*valuez*"]
    )


def test_a_snippet_named_on_the_command_line_runs_as_a_script(project):
    # pytest's own collector would import it as a test module, and fail on its ValueError.
    project.snippet("a/snippet.py", RAISES_VALUE_ERROR)
    page_raising(project, "ValueError: the saved tensor is gone")
    result = project.run("-v", "snippets/a/snippet.py")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*snippets/a/snippet.py::run PASSED*"])


def test_standalone_run_matches_python_running_the_file(project):
    """The in-process run must see what `python snippets/a/where.py` sees."""
    project.snippet(
        "a/where.py",
        """\
        import os
        import sys
        print(__name__)
        print(os.path.relpath(__file__))
        print(sys.argv)
        print(os.path.relpath(sys.path[0]))
        def f(x: int): pass
        print(f.__annotations__)
        """,
    )
    real = subprocess.run(
        [sys.executable, "snippets/a/where.py"],
        cwd=project.pytester.path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert real.splitlines()[0] == "__main__"
    project.page(include("a/where.py") + "\n" + fence('text title="Output"', real))
    project.run().assert_outcomes(passed=1)


def test_a_script_runs_once_and_ends_as_every_page_showing_it_says(project):
    project.snippet(
        "a/count.py",
        """\
        from pathlib import Path
        counter = Path("runs.txt")
        counter.write_text(counter.read_text() + "x" if counter.exists() else "x")
        print("counted")
        """,
    )
    project.page(include("a/count.py") + "\n" + fence('text title="Output"', "counted"))
    project.page(include("a/count.py") + "\n" + fence('text title="Output"', "count"), "b.md")
    result = project.run("-v")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*docs/b.md::snippets/a/count.py FAILED*",
            "docs/b.md:1 (snippets/a/count.py): printed output differs from the page*",
        ]
    )
    assert (project.pytester.path / "runs.txt").read_text() == "x"


def test_no_script_changes_the_next_ones_result(project):
    project.snippet(
        "a/meddles.py",
        """\
        import os
        import random
        import sys
        import numpy as np
        import torch
        from torch.autograd.graph import saved_tensors_hooks
        from torch.nn.modules.module import register_module_forward_hook
        torch.autograd.set_detect_anomaly(True)
        torch.set_grad_enabled(False)
        torch.set_default_dtype(torch.float64)
        torch.set_num_threads(1)
        torch.set_printoptions(precision=1)
        torch.manual_seed(0)
        random.seed(0)
        np.random.seed(0)
        os.chdir("docs")
        torch.set_default_device("meta")
        register_module_forward_hook(lambda *args: print("global hook"))
        saved_tensors_hooks(print, print).__enter__()
        torch.set_float32_matmul_precision("medium")
        sys.setrecursionlimit(123456)
        os.environ["MEDDLED"] = "yes"
        print("meddled")
        """,
    )
    project.snippet(
        "a/inspects.py",
        """\
        import os
        import torch
        print(torch.is_anomaly_enabled(), torch.is_grad_enabled(), torch.get_default_dtype())
        print(torch.get_num_threads(), torch.tensor(1 / 3), os.path.basename(os.getcwd()))
        print(torch.rand(2))
        import sys
        x = torch.ones(1, requires_grad=True)
        torch.nn.Identity()(x * x)
        print(x.device, torch.get_float32_matmul_precision(), sys.getrecursionlimit())
        print(os.environ.get("MEDDLED"))
        """,
    )
    # Unseeded draws differ between fresh processes; within the suite every script starts from
    # the generator state the suite started with, whatever ran before it.
    with torch.random.fork_rng():
        fresh = torch.rand(2)
    expected = (
        f"False True torch.float32\n{torch.get_num_threads()} tensor(0.3333) "
        f"{project.pytester.path.name}\n{fresh}\n"
        f"cpu highest {sys.getrecursionlimit()}\nNone"
    )
    project.page(
        include("a/meddles.py")
        + "\n"
        + fence('text title="Output"', "meddled")
        + "\n"
        + include("a/inspects.py")
        + "\n"
        + fence('text title="Output"', expected)
    )
    project.run().assert_outcomes(passed=2)
    assert torch.get_default_dtype() == torch.float32 and not torch.is_anomaly_enabled()
    assert torch.get_default_device() == torch.device("cpu")


def test_a_librarys_global_state_does_not_reach_the_next_script(project):
    """Pyro keeps parameters in a process-wide store, which pyro.module() reads back,
    accelerate keeps its settings in singletons, and Keras numbers its layers' names by a
    process-wide counter: a script that runs after another must find all three as `python
    script.py` does."""
    project.snippet(
        "a/registers.py",
        "import pyro, torch\n"
        'pyro.param("scale", torch.ones(1))\n'
        "from accelerate import Accelerator\n"
        "Accelerator(cpu=True, gradient_accumulation_steps=4)\n"
        "import os\n"
        'os.environ["KERAS_BACKEND"] = "torch"\n'
        "import keras\n"
        "keras.layers.Dense(2)\n"
        'print("registered")\n',
    )
    project.snippet(
        "a/reads.py",
        "import pyro\n"
        "print(list(pyro.get_param_store().keys()))\n"
        "from accelerate.state import AcceleratorState, GradientState\n"
        "print(bool(AcceleratorState._shared_state), bool(GradientState._shared_state))\n"
        "import keras\n"
        "print(keras.layers.Dense(2).name)\n",
    )
    project.page(
        include("a/registers.py")
        + "\n"
        + fence('text title="Output"', "registered")
        + "\n"
        + include("a/reads.py")
        + "\n"
        + fence('text title="Output"', "[]\nFalse False\ndense")
    )
    project.run().assert_outcomes(passed=2)


def test_state_that_cannot_be_undone_cleanly_fails_the_script_that_left_it(project):
    project.snippet("a/enters.py", 'import torch\ntorch.device("meta").__enter__()\nprint("in")\n')
    project.snippet("a/after.py", "import torch\nprint(torch.ones(1).device)\n")
    project.page(
        include("a/enters.py")
        + "\n"
        + fence('text title="Output"', "in")
        + "\n"
        + include("a/after.py")
        + "\n"
        + fence('text title="Output"', "cpu")
    )
    result = project.run()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*docs/page.md:1 (snippets/a/enters.py): it left torch modes*"])


def test_a_module_imported_from_snippets_is_fresh_in_every_script(project):
    project.snippet("a/helper.py", 'value = "fresh"\nprint(value)\n')
    project.snippet("a/changes.py", 'import helper\nhelper.value = "changed"\n')
    project.snippet("a/reads.py", "import helper\nprint(helper.value)\n")
    project.page(
        "\n".join(
            include(f"a/{name}.py") + "\n" + fence('text title="Output"', out)
            for name, out in (("helper", "fresh"), ("changes", "fresh"), ("reads", "fresh\nfresh"))
        )
    )
    project.run().assert_outcomes(passed=3)


def test_a_build_config_that_would_drop_missing_snippets_is_refused(project):
    project.pytester.makefile(
        ".yml", mkdocs=MKDOCS_YML.replace("check_paths: true", "check_paths: false")
    )
    project.page("Nothing.\n")
    result = project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*pymdownx.snippets*check_paths: true*"])


# --------------------------------------------------------------------------------------------
# --bless
# --------------------------------------------------------------------------------------------

RAISES_LONG = """\
print("step 1")
raise ValueError("the saved tensor is gone, freed by the first backward")
"""


def blessable(project):
    """A page whose first block still matches (with patterns) and whose second changed."""
    project.snippet("a/fails.py", RAISES_LONG)
    project.snippet("a/prints.py", 'print("x.grad = 12.0")\nprint("done")\n')
    project.page(
        "# Title\n\n"
        + include("a/fails.py")
        + "\n"
        + fence('text title="Output"', "step ...")
        + "\n"
        + fence('text title="Raises"', "ValueError: the saved tensor is gone, ...")
        + "\nProse.\n\n"
        + include("a/prints.py")
        + "\n"
        + fence('text title="Output"', "x.grad = 6.0\ndone")
    )
    project.page(
        "Other.\n\n" + include("a/same.py") + "\n" + fence('text title="Output"', "same"),
        "other.md",
    )
    project.snippet("a/same.py", 'print("same")\n')


def test_bless_rewrites_only_what_changed_and_keeps_matching_patterns(project):
    blessable(project)
    before, other = project.read(), project.read("other.md")
    result = project.run("--bless")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["--bless rewrote:", "  docs/page.md:17 (Output)"])
    expected = before.replace("x.grad = 6.0\ndone", "x.grad = 12.0\ndone")
    assert project.read() == expected
    assert project.read("other.md") == other


def test_after_bless_a_normal_run_passes_and_a_second_bless_changes_nothing(project):
    blessable(project)
    project.run("--bless").assert_outcomes(passed=3)
    blessed = project.read()
    project.run().assert_outcomes(passed=3)
    again = project.run("--bless")
    again.assert_outcomes(passed=3)
    again.stdout.fnmatch_lines(["--bless: every page already says what its blocks do*"])
    assert project.read() == blessed


def test_bless_rewrites_a_changed_message_and_drops_output_no_longer_printed(project):
    project.snippet("a/snippet.py", 'raise ValueError("another message")\n')
    project.page(
        include("a/snippet.py")
        + "\n"
        + fence('text title="Output"', "about to fail")
        + "\n"
        + fence('text title="Raises"', "ValueError: the saved tensor is gone")
    )
    project.run("--bless").assert_outcomes(passed=1)
    assert project.read() == include("a/snippet.py") + "\n" + fence(
        'text title="Raises"', "ValueError: another message"
    )
    project.run().assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("code", "declared", "why"),
    [
        ('print("fixed")\n', 'text title="Raises"', "documented to raise ValueError*"),
        ('raise ValueError("x")\n', 'text title="Output"', "documented to succeed, but raised:"),
    ],
)
def test_bless_refuses_to_turn_a_raise_into_a_pass_or_back(project, code, declared, why):
    project.snippet("a/snippet.py", code)
    body = "ValueError: x" if "Raises" in declared else "fixed"
    project.page(include("a/snippet.py") + "\n" + fence(declared, body))
    before = project.read()
    result = project.run("--bless")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"*docs/page.md:1 (snippets/a/snippet.py): {why}"])
    result.stdout.fnmatch_lines(["*--bless never turns a raise into a pass or back*"])
    assert project.read() == before


def test_bless_fills_in_blocks_with_no_outcome(project):
    project.snippet("a/fails.py", RAISES_LONG)
    project.snippet("a/quiet.py", "x = 1\n")
    project.page(
        "1. First:\n\n    "
        + include("a/fails.py").replace("\n", "\n    ").rstrip(" ")
        + "\nThen:\n\n"
        + include("a/quiet.py")
    )
    project.run().assert_outcomes(failed=2)
    project.run("--bless").assert_outcomes(passed=2)
    assert project.read() == (
        "1. First:\n\n    "
        + include("a/fails.py").replace("\n", "\n    ").rstrip(" ")
        + "\n    "
        + fence('text title="Output"', "step 1").replace("\n", "\n    ").rstrip(" ")
        + "\n    "
        + fence(
            'text title="Raises"',
            "ValueError: the saved tensor is gone, freed by the first backward",
        )
        .replace("\n", "\n    ")
        .rstrip(" ")
        + "\nThen:\n\n"
        + include("a/quiet.py")
        + '\n```text title="Output"\n```\n'
    )
    project.run().assert_outcomes(passed=2)


def test_bless_still_fails_every_other_problem(project):
    project.snippet("a/snippet.py", 'print("hi")\n')
    project.page(
        "<!--pytest.mark.skip-->\n"
        + include("a/snippet.py")
        + "\n"
        + fence('text title="Output"', "hi")
        + "\n"
        + include("a/nowhere.py")
    )
    result = project.run("--bless")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(["*docs/page.md:1: marker*", "*docs/page.md:10: include failed*"])


def test_script_runs_lists_each_run_once_with_its_time(project):
    project.pytester.makeconftest(
        """
        import json
        from snippet_harness.plugin import script_runs

        def pytest_sessionfinish(session):
            with open("runs.json", "w") as f:
                json.dump(script_runs(session.config), f)
        """
    )
    project.snippet("a/works.py", 'print("fixed")\n')
    project.page(include("a/works.py") + "\n" + fence('text title="Output"', "fixed"))
    project.run().assert_outcomes(passed=1)
    runs = json.loads((project.pytester.path / "runs.json").read_text())
    assert [r["script"] for r in runs] == [str(project.pytester.path / "snippets/a/works.py")]
    assert isinstance(runs[0]["seconds"], float) and runs[0]["seconds"] > 0


def test_bless_adds_output_above_a_raises_and_keeps_indentation(project):
    project.snippet("a/fails.py", 'print("now it prints")\nraise ValueError("x")\n')
    project.snippet("a/prints.py", 'print("new")\n')
    indented = "- Item:\n\n" + textwrap.indent(
        include("a/fails.py")
        + "\n"
        + fence('text title="Raises"', "ValueError: x")
        + "\n"
        + include("a/prints.py")
        + "\n"
        + fence('text title="Output"', "old"),
        "    ",
    )
    project.page(indented)
    project.run("--bless").assert_outcomes(passed=2)
    assert project.read() == indented.replace(
        '    ```text title="Raises"',
        '    ```text title="Output"\n    now it prints\n    ```\n\n    ```text title="Raises"',
    ).replace("    old\n", "    new\n")
    project.run().assert_outcomes(passed=2)


def test_bless_refuses_output_a_fence_cannot_show(project):
    project.snippet("a/snippet.py", 'print("no newline", end="")\n')
    project.page(include("a/snippet.py") + "\n" + fence('text title="Output"', "no newline"))
    before = project.read()
    project.run("--bless").stdout.fnmatch_lines(
        ["*its Output does not end with a newline, which a fence cannot show*"]
    )
    assert project.read() == before


# --------------------------------------------------------------------------------------------
# Text that differs between torch releases: one fence per range of releases
# --------------------------------------------------------------------------------------------

HERE = TORCH.base_version  # the torch these tests run on
NEXT = f"{TORCH.major}.{TORCH.minor + 1}"


def by_release(project, older, newer, title="Output"):
    """A page whose block prints `here`, with one fence for releases before this one and one
    for this one and later."""
    project.snippet("a/snippet.py", 'print("here")\n')
    project.page(
        include("a/snippet.py")
        + "\n"
        + fence(f'text title="{title} (torch < {HERE})"', older)
        + "\n"
        + fence(f'text title="{title} (torch >= {HERE})"', newer)
    )


def test_the_fence_for_this_torch_is_checked(project):
    by_release(project, "elsewhere", "here")
    project.run().assert_outcomes(passed=1)


def test_the_fence_for_this_torch_must_match(project):
    by_release(project, "here", "elsewhere")
    project.run().stdout.fnmatch_lines(
        ["*printed output differs from the page (line 9):", "-elsewhere", "+here"]
    )


def test_fences_that_overlap_on_this_torch_fail(project):
    project.snippet("a/snippet.py", 'print("here")\n')
    project.page(
        include("a/snippet.py")
        + "\n"
        + fence('text title="Output"', "here")
        + "\n"
        + fence(f'text title="Output (torch >= {HERE})"', "here")
    )
    project.run().stdout.fnmatch_lines(
        [f"*docs/page.md:1 (snippets/a/snippet.py): two Output fences hold on torch {TORCH}*"]
    )


def test_a_torch_no_fence_is_for_fails(project):
    project.snippet("a/snippet.py", 'print("here")\n')
    project.page(
        include("a/snippet.py") + "\n" + fence(f'text title="Output (torch >= {NEXT})"', "x")
    )
    project.run().stdout.fnmatch_lines(
        [f"*none of its outcome fences holds on torch {TORCH}: add one titled for it*"]
    )


def test_a_raises_for_some_releases_only(project):
    """Raising before this torch, finishing from it on: the fences that hold are the outcome."""
    project.snippet("a/snippet.py", 'print("here")\n')
    project.page(
        include("a/snippet.py")
        + "\n"
        + fence('text title="Output"', "here")
        + "\n"
        + fence(f'text title="Raises (torch < {HERE})"', "ValueError: gone")
    )
    project.run().assert_outcomes(passed=1)


def test_a_range_that_is_not_one_fails(project):
    by_release(project, "elsewhere", "here")
    project.page(project.read().replace(f"(torch < {HERE})", "(torch before 2.15)"))
    project.run().stdout.fnmatch_lines(
        ["*docs/page.md:5: 'Output (torch before 2.15)': not a torch version range*"]
    )


def test_bless_rewrites_only_the_fence_for_this_torch(project):
    by_release(project, "elsewhere", "was here")
    before = project.read()
    project.run("--bless").assert_outcomes(passed=1)
    assert project.read() == before.replace("was here", "here")


# --------------------------------------------------------------------------------------------
# What the comparison catches, and the scripts left out of the inner loop
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("printed", "declared"),
    [
        # doctest.OutputChecker accepts each of these unless told not to.
        ("print(True)", "1"),
        ("print(False)", "0"),
        ("print('a\\n   \\nb')", "a\n\nb"),
        ("print('a\\n\\nb')", "a\n<BLANKLINE>\nb"),
    ],
)
def test_output_that_only_looks_the_same_fails(project, printed, declared):
    project.snippet("a/snippet.py", printed + "\n")
    project.page(include("a/snippet.py") + "\n" + fence('text title="Output"', declared))
    project.run().stdout.fnmatch_lines(["*printed output differs from the page*"])


def test_no_processes_deselects_the_scripts_that_start_them(project):
    project.snippet(
        "a/launcher.py", "import subprocess\n\nimport torch.distributed\n\nprint('launcher')\n"
    )
    project.snippet("a/uses_launcher.py", "from launcher import subprocess\n")
    project.snippet("a/pool.py", 'from torch import multiprocessing\n\nprint("pool")\n')
    # subprocess alone: it may start a process only when asked to (measure_costs.py --write).
    project.snippet("a/plain.py", 'import subprocess\n\nprint("hi")\n')
    project.page(
        "\n".join(
            include(f"a/{name}.py") + "\n" + fence('text title="Output"', out)
            for name, out in (
                ("launcher", "launcher"),
                ("uses_launcher", "launcher"),
                ("pool", "pool"),
                ("plain", "hi"),
            )
        )
    )
    result = project.run("--no-processes", "-q")
    result.assert_outcomes(passed=1, deselected=3)
    result.stdout.fnmatch_lines(["--no-processes: 3 scripts that start processes deselected*"])
    project.run().assert_outcomes(passed=4)


def test_every_snippet_has_lines_of_its_own():
    """What the PDF check looks for: a line (or run of lines) of each snippet that no other
    snippet has."""
    from snippet_harness.identify import identifying_lines

    root = Path(__file__).resolve().parents[1] / "snippets"
    snippets = sorted(root.rglob("*.py"))
    found = identifying_lines(snippets)
    assert [p for p, run in found.items() if run is None] == []
    # As a page shows each one whole: without its section markers, which can sit inside a run.
    shown = {
        p: [line for line in p.read_text().splitlines() if "8<-" not in line] for p in snippets
    }
    squashed = {p: " ".join(" ".join(lines).split()) for p, lines in shown.items()}
    # Each file once (a link to another file is that file), in one text that no run spans.
    everything = "\0".join({p.resolve(): text for p, text in squashed.items()}.values())
    for p, run in found.items():
        run = " ".join(run.split())
        assert run in squashed[p]
        assert everything.count(run) == squashed[p].count(run), p


@pytest.mark.parametrize(("cores", "workers", "threads"), [(2, 2, "1"), (8, 2, "4"), (1, 2, "1")])
def test_an_xdist_worker_takes_its_share_of_the_cores(monkeypatch, cores, workers, threads):
    """Each worker's torch (and every process it starts) gets cores // workers threads, at
    least one; a setting the user made stays, and a run without workers changes nothing."""
    monkeypatch.setattr("os.cpu_count", lambda: cores)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    share_the_cores(type("Config", (), {})())
    assert "OMP_NUM_THREADS" not in os.environ
    worker = type("Config", (), {"workerinput": {"workercount": workers}})()
    share_the_cores(worker)
    assert os.environ["OMP_NUM_THREADS"] == threads
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    share_the_cores(worker)
    assert os.environ["OMP_NUM_THREADS"] == "3"
