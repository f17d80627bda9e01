"""Reading a MkDocs project as `mkdocs build` does: its config, and includes expanded by
pymdownx's own snippets preprocessor."""

from __future__ import annotations

import textwrap
from pathlib import Path

import markdown
import pytest
from mkdocs.utils import yaml_load
from pymdownx.snippets import SnippetExtension, SnippetPreprocessor

from .fences import Block, Problem, analyse


class _RecordingSnippets(SnippetPreprocessor):
    """pymdownx's own preprocessor, remembering which files a block pulled in."""

    def __init__(self, config, md):
        super().__init__(config, md)
        self.included: list[dict] = []

    def process_snippet_lines(self, lines, target):
        self.included.append(dict(target))
        return super().process_snippet_lines(lines, target)


class Site:
    """The pages and snippets of one MkDocs project, read the way `mkdocs build` reads them."""

    def __init__(self, root: Path):
        self.root = root
        config = yaml_load((root / "mkdocs.yml").read_text(encoding="utf-8")) or {}
        self.docs_dir = (root / config.get("docs_dir", "docs")).resolve()
        self.snippets_dir = (root / "snippets").resolve()
        snippet_config = None
        for ext in config.get("markdown_extensions") or []:
            if isinstance(ext, dict) and "pymdownx.snippets" in ext:
                snippet_config = dict(ext["pymdownx.snippets"] or {})
        if snippet_config is None or not snippet_config.get("check_paths"):
            raise pytest.UsageError(
                "mkdocs.yml must list pymdownx.snippets under markdown_extensions with "
                "check_paths: true; otherwise a missing snippet vanishes from the page unnoticed"
            )
        base = snippet_config.get("base_path", ["."])
        base = [base] if isinstance(base, str) else base
        # The build runs from the project root; resolve the same paths from wherever pytest runs.
        snippet_config["base_path"] = [str((root / b).resolve()) for b in base]
        self.snippet_config = SnippetExtension(**snippet_config).getConfigs()
        self._pages: dict[Path, tuple[list[Block], list[Problem]]] = {}
        self._shown: dict[Path, list[Block]] | None = None

    def rel(self, path) -> str:
        path = Path(path).resolve()
        try:
            return str(path.relative_to(self.root))
        except ValueError:
            return str(path)

    def where(self, block: Block) -> str:
        return f"{self.rel(block.page)}:{block.lineno}"

    def expand(self, code: str) -> tuple[str, list[dict], bool]:
        """The code a fence shows the reader, the files it pulled in (nested ones after it),
        and whether every line of the fence is snippet notation."""
        pre = _RecordingSnippets(self.snippet_config, markdown.Markdown())
        source = code.rstrip("\n").split("\n")
        mask = pre.get_syntax_mask(source)
        shown = pre.run(source)
        all_notation = all(
            is_notation for line, is_notation in zip(source, mask, strict=True) if line.strip()
        )
        return "\n".join(shown).rstrip("\n") + "\n", pre.included, all_notation

    def page(self, path: Path) -> tuple[list[Block], list[Problem]]:
        """The page's python blocks and what is wrong on it."""
        path = path.resolve()
        if path not in self._pages:
            self._pages[path] = analyse(path, self.expand)
        return self._pages[path]

    def shown(self, snippet: Path) -> list[Block]:
        """Every block on every page that shows `snippet`, whole or an excerpt of it."""
        if self._shown is None:
            self._shown = {}
            for page in sorted(self.docs_dir.rglob("*.md")):
                for block in self.page(page)[0]:
                    self._shown.setdefault(block.snippet.resolve(), []).append(block)
        return self._shown.get(snippet.resolve(), [])

    def homes(self, snippet: Path) -> list[Block]:
        """The blocks that show `snippet` whole: each is its test's declaration."""
        return [b for b in self.shown(snippet) if b.excerpt is None]

    def excerpt_problem(self, block: Block) -> str | None:
        """Why an excerpt is not a verbatim part of a tested file, or None."""
        if not self.homes(block.snippet):
            return (
                f"an excerpt of {self.rel(block.snippet)}, which no page shows whole: show the "
                "whole script once, with its outcome, so that what the excerpt shows is tested"
            )
        if block.fences:
            homes = ", ".join(self.where(b) for b in self.homes(block.snippet))
            return (
                f"an excerpt is not run, so it has no outcome of its own: the whole script's "
                f"is at {homes}; remove the fences under it"
            )
        probe = SnippetPreprocessor(self.snippet_config, markdown.Markdown())
        text = block.snippet.read_text(encoding="utf-8").split("\n")
        lines = [line for line in text if not probe.match_section(line)]
        want = textwrap.dedent(block.code).rstrip("\n").split("\n")
        for i in range(len(lines) - len(want) + 1):
            if textwrap.dedent("\n".join(lines[i : i + len(want)])).split("\n") == want:
                return None
        return (
            f"what it shows ({block.excerpt}) is not one unbroken run of lines of "
            f"{self.rel(block.snippet)}: show one section or one line range"
        )
