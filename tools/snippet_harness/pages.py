"""Reading a MkDocs project as `mkdocs build` does: its config, and includes expanded by
pymdownx's own snippets preprocessor."""

from __future__ import annotations

import itertools
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

    def rel(self, path) -> str:
        path = Path(path).resolve()
        try:
            return str(path.relative_to(self.root))
        except ValueError:
            return str(path)

    def shows(self, block: Block) -> str:
        """' (snippets/a.py, ...)': what a message about the block says it shows."""
        names = [self.rel(i["snippet"]) for i in block.includes]
        return f" ({', '.join(names)})" if names else ""

    def expand(self, code: str) -> tuple[str, list[dict], list[int]]:
        """The code the reader sees, the files it pulls in, and for each of its lines the index
        of the line of `code` it comes from (all of an include's lines come from the include)."""
        pre = _RecordingSnippets(self.snippet_config, markdown.Markdown())
        source = code.rstrip("\n").split("\n")
        notation = pre.get_syntax_mask(source)
        lines: list[str] = []
        origin: list[int] = []
        # Each line that is not snippet notation comes out as one line; each run of notation
        # (an include, or a block of paths) as whatever it expands to.
        for is_notation, run in itertools.groupby(range(len(source)), notation.__getitem__):
            run = list(run)
            expanded = pre.run([source[i] for i in run])
            lines += expanded
            origin += [run[0]] * len(expanded) if is_notation else run
        return "\n".join(lines).rstrip("\n") + "\n", pre.included, origin

    def first_line_of(self, include: dict) -> int:
        """Line of the snippet file where the included part (a section, a line range) starts."""
        if include["start"]:
            return (include["start"][0] or 0) + 1
        if not include["section"]:
            return 1
        probe = _RecordingSnippets(self.snippet_config, markdown.Markdown())
        text = Path(include["snippet"]).read_text(encoding="utf-8")
        for n, line in enumerate(text.split("\n"), 1):
            m = probe.match_section(line)
            if m and m.group("name") == include["section"] and m.group("type") == "start":
                return n + 1
        return 1

    def page(self, path: Path) -> tuple[list[Block], list[Problem]]:
        """The page's python blocks (with or without an outcome) and what is wrong on it."""
        path = path.resolve()
        if path not in self._pages:
            self._pages[path] = analyse(path, self.expand)
        return self._pages[path]

    def all_blocks(self) -> list[Block]:
        return [b for p in sorted(self.docs_dir.rglob("*.md")) for b in self.page(p)[0]]
