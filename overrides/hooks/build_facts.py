"""MkDocs hook: facts the site states, taken from their source, not typed in.

- The torch version on the PDF's title page is the one requirements.txt pins, which is the one
  `make test` installs and runs every snippet on.
- The reference page's list of tested torch versions is tested-torch-versions.txt, which only
  a fully passing `make test` adds to (scripts/record_tested_version.py); no test writes it.
- The Download PDF button names the file `make pdf` writes (tools/sitekit.py names it).
"""

import datetime
import re
import sys
from pathlib import Path

TOOLS = str(Path(__file__).resolve().parents[2] / "tools")
if TOOLS not in sys.path:
    sys.path.insert(0, TOOLS)
import sitekit  # noqa: E402

TESTED_MARKER = "<!-- tested torch versions -->"


def tested_versions(project: Path) -> list[str]:
    listed = project / "tested-torch-versions.txt"
    text = listed.read_text(encoding="utf-8") if listed.exists() else ""
    return [line.strip() for line in text.splitlines() if line.strip()]


def on_config(config):
    project = Path(config["config_file_path"]).parent
    requirements = project / "requirements.txt"
    pinned = re.search(r"^torch==(\S+)", requirements.read_text(encoding="utf-8"), re.M)
    config["extra"]["torch_version"] = pinned.group(1)
    config["extra"]["build_date"] = datetime.date.today().isoformat()
    config["extra"]["pdf_path"] = "pdf/" + sitekit.pdf_name(config["site_name"])
    return config


def on_page_markdown(markdown, page, config, files):
    if TESTED_MARKER not in markdown:
        return markdown
    versions = tested_versions(Path(config["config_file_path"]).parent)
    listing = "".join(f"- torch {v}\n" for v in versions) or "- none recorded yet\n"
    return markdown.replace(TESTED_MARKER, listing)
