"""MkDocs hook: facts the site states, taken from their source, not typed in.

- The torch version on the PDF's title page is the one requirements.txt pins, which is the one
  `make test` installs and runs every snippet on.
- The torch versions the site is tested on are tested-torch-versions.txt, which only a fully
  passing `make test` adds to (scripts/record_tested_version.py); no test writes it. A page
  says them as a list (`<!-- tested torch versions -->`, on a line of its own) or in a sentence
  (`<!-- tested torch -->`: "2.13.0, 2.14.1 and 2.15.0", in the text or the front matter).
- What changed between those releases (`<!-- what changed between releases -->`): a table made
  from docs/releases/torch-<version>.json, which the same passing run writes with what that
  torch printed (scripts/release_facts.py). The JSON files are data, not part of the site.
- The Download PDF buttons name the files `make pdf` writes (tools/sitekit.py names them: the
  guide and the whole site), and so do the links to both PDFs and the offline zip in the footer
  and on the home page (`<!-- downloads -->`), both overrides/partials/downloads.html. `mkdocs
  serve` has none of the files, so there it shows no such link; the offline copy has its PDFs
  but not the zip it came in. sitekit.package() writes each file's size (and a PDF's page
  count) into the links it finds (`data-bt-size`).
"""

import datetime
import difflib
import json
import os
import re
from pathlib import Path

import sitekit
from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

TESTED_MARKER = "<!-- tested torch versions -->"
TESTED_INLINE = "<!-- tested torch -->"
CHANGES_MARKER = "<!-- what changed between releases -->"
DOWNLOADS_MARKER = "<!-- downloads -->"
_command = None  # the mkdocs command this build runs under: build, serve, gh-deploy
RELEASES = "releases"  # under docs/: one JSON file of facts per tested torch
ROWS = (
    ("message", "The message of this error, after `RuntimeError: `", str),
    ("checkpoint_warning", "The warning of `checkpoint` called without `use_reentrant`", str),
    (
        "node_creation_hook",
        "What a diagnosis can use to learn where each node of the graph was made",
        lambda has: (
            "`torch.autograd.graph.node_creation_hook`"
            if has
            else "anomaly mode only (`torch.autograd.set_detect_anomaly`), which has no such hook"
        ),
    ),
)


def tested_versions(project: Path) -> list[str]:
    listed = project / "tested-torch-versions.txt"
    text = listed.read_text(encoding="utf-8") if listed.exists() else ""
    return [line.strip() for line in text.splitlines() if line.strip()]


def in_words(versions: list[str]) -> str:
    """'2.13.0, 2.14.1 and 2.15.0'."""
    return " and ".join(filter(None, [", ".join(versions[:-1]), versions[-1]])) if versions else ""


def on_startup(command, dirty):
    global _command
    _command = command


def on_config(config):
    project = Path(config["config_file_path"]).parent
    requirements = project / "requirements.txt"
    pinned = re.search(r"^torch==(\S+)", requirements.read_text(encoding="utf-8"), re.M)
    config["extra"]["torch_version"] = pinned.group(1)
    config["extra"]["build_date"] = datetime.date.today().isoformat()
    config["extra"]["pdf_path"] = "pdf/" + sitekit.pdf_name(config["site_name"])
    config["extra"]["guide_path"] = "pdf/" + sitekit.guide_pdf_name(config["site_name"])
    config["extra"]["zip_path"] = "offline/" + sitekit.offline_zip_name(config["site_name"])
    config["extra"]["downloads"] = _command != "serve"
    config["extra"]["offline_copy"] = os.environ.get("OFFLINE", "false").lower() == "true"
    return config


def on_files(files, config):
    for file in [f for f in files if f.src_uri.startswith(f"{RELEASES}/")]:
        files.remove(file)
    return files


def on_page_markdown(markdown, page, config, files):
    versions = tested_versions(Path(config["config_file_path"]).parent)
    for key, value in page.meta.items():
        if isinstance(value, str) and TESTED_INLINE in value:
            page.meta[key] = value.replace(TESTED_INLINE, in_words(versions))
    markdown = markdown.replace(TESTED_INLINE, in_words(versions))
    if TESTED_MARKER in markdown:
        listing = "".join(f"- torch {v}\n" for v in versions) or "- none recorded yet\n"
        markdown = markdown.replace(TESTED_MARKER, listing)
    if DOWNLOADS_MARKER in markdown:
        markdown = markdown.replace(DOWNLOADS_MARKER, downloads(config, page))
    if CHANGES_MARKER in markdown:
        markdown = markdown.replace(CHANGES_MARKER, changes(Path(config["docs_dir"]), versions))
    return markdown


def changes(docs: Path, versions: list[str]) -> str:
    """A table: for each fact, the tested releases grouped by what they showed, the words that
    differ between groups in bold."""
    facts = {}
    for v in versions:
        path = docs / RELEASES / f"torch-{v}.json"
        if not path.exists():
            raise PluginError(
                f"torch {v} is in tested-torch-versions.txt but {path} is missing: a passing "
                f"`make test TORCH={v}` writes it"
            )
        facts[v] = json.loads(path.read_text(encoding="utf-8"))
    rows = ["| What | torch | What it prints or has |", "|---|---|---|"]
    for key, what, shown in ROWS:
        groups: dict[str, list[str]] = {}
        for v in versions:
            groups.setdefault(shown(facts[v][key]), []).append(v)
        texts = list(groups)
        for i, text in enumerate(texts):
            cell = text
            if shown is str:  # words it does not share with the neighbouring group in bold
                other = texts[i - 1] if i else texts[1] if len(texts) > 1 else text
                cell = _marked(other, text)
            rows.append(f"| {what} | {in_words(groups[text])} | {cell} |")
            what = ""
    return "\n".join(rows) + "\n"


def _marked(before: str, after: str) -> str:
    """`after`, its words that are not in `before` in bold."""
    old, new = before.split(), after.split()
    out = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, _, _, j1, j2 in matcher.get_opcodes():
        words = _escape(" ".join(new[j1:j2]))
        out.append(words if tag == "equal" else f"**{words}**" if words else "")
    return " ".join(filter(None, out))


def _escape(text: str) -> str:
    return re.sub(r"([\\`*_\[\]<|])", r"\\\1", text)


def downloads(config, page) -> str:
    """overrides/partials/downloads.html, the footer's links to the PDF and the zip, rendered
    as a paragraph of `page` (so its links are relative to it, as the `url` filter makes them in
    the footer). The build's own template environment is not made yet when pages are read, so
    this takes the theme's, which has the same loader and the `url` filter."""
    template = config.theme.get_env().get_template("partials/downloads.html")
    base_url = get_relative_url(".", page.url)
    return template.render(config=config, page=page, base_url=base_url, tag="p")
