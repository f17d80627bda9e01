"""MkDocs hook: facts the PDF's title page states, taken from their source, not typed in.

The torch version is the one requirements.txt pins, which is the one `make test` installs and
runs every snippet on.
"""

import datetime
import re
from pathlib import Path


def on_config(config):
    requirements = Path(config["config_file_path"]).parent / "requirements.txt"
    pinned = re.search(r"^torch==(\S+)", requirements.read_text(encoding="utf-8"), re.M)
    config["extra"]["torch_version"] = pinned.group(1)
    config["extra"]["build_date"] = datetime.date.today().isoformat()
    return config
