"""Lighthouse scores and page weight of the built site: a benchmark, not a test.

Builds the site (or takes --site-dir), serves it on 127.0.0.1, and runs Lighthouse (pinned in
package.json, installed with `npm ci`) on the home page and one scenario page with the mobile and
desktop presets. Prints the four category scores and the bytes each page transfers.

The server compresses text with gzip, as GitHub Pages does: `python -m http.server` does not,
and would make every page weigh about three times what a reader downloads. The uncompressed
total is printed too.

Targets: 100 in all four categories on desktop, at least 95 on mobile, and a scenario page under
400 KB transferred. A missed target is marked in the table; --strict makes it exit 1.
"""

import argparse
import gzip
import http.server
import io
import json
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from make_pdf import CHROMIUM, CHROMIUM_FLAGS

ROOT = Path(__file__).resolve().parents[1]
LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
PAGES = {"home": "/", "scenario": "/scenarios/gan/"}
PRESETS = ("mobile", "desktop")
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
TARGET = {"desktop": 100, "mobile": 95}
SCENARIO_BYTES = 400 * 1024
COMPRESSIBLE = ("text/", "application/javascript", "application/json", "image/svg+xml")


class GzipHandler(http.server.SimpleHTTPRequestHandler):
    """Static files, text ones gzip-compressed for clients that accept it."""

    cache: dict[str, bytes] = {}

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir() and self.path.split("?")[0].endswith("/"):
            path = path / "index.html"
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        ctype = self.guess_type(str(path))
        if not (accepts and path.is_file() and ctype.startswith(COMPRESSIBLE)):
            return super().send_head()
        body = self.cache.get(str(path))
        if body is None:
            body = self.cache[str(path)] = gzip.compress(path.read_bytes(), 6)
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Cache-Control", "max-age=600")
        self.end_headers()
        return io.BytesIO(body)

    def log_message(self, *args):
        pass


def build(site: Path):
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--quiet", "--site-dir", str(site)],
        cwd=ROOT,
        check=True,
    )


def lighthouse(url: str, preset: str, out: Path) -> dict:
    command = [
        str(LIGHTHOUSE),
        url,
        "--quiet",
        "--output=json",
        f"--output-path={out}",
        f"--only-categories={','.join(CATEGORIES)}",
        "--chrome-flags="
        + " ".join(f if f != "--headless" else "--headless=new" for f in CHROMIUM_FLAGS),
    ]
    if preset == "desktop":
        command.append("--preset=desktop")
    env = {**os.environ, "CHROME_PATH": os.environ.get("CHROME_PATH", CHROMIUM)}
    subprocess.run(command, env=env, check=True)
    report = json.loads(out.read_text())
    requests = report["audits"]["network-requests"]["details"]["items"]
    return {
        "scores": {c: round(report["categories"][c]["score"] * 100) for c in CATEGORIES},
        "transferred": report["audits"]["total-byte-weight"]["numericValue"],
        "uncompressed": sum(r.get("resourceSize", 0) for r in requests),
        "failing": [
            f"{c}: {ref['id']}"
            for c in CATEGORIES
            for ref in report["categories"][c]["auditRefs"]
            if ref["weight"]
            and (report["audits"][ref["id"]]["score"] or 0) < 1
            and report["audits"][ref["id"]]["scoreDisplayMode"] not in ("notApplicable", "manual")
        ],
    }


def misses(name: str, preset: str, result: dict) -> list[str]:
    found = [f"{c} < {TARGET[preset]}" for c, s in result["scores"].items() if s < TARGET[preset]]
    if name == "scenario" and result["transferred"] >= SCENARIO_BYTES:
        found.append(f"transferred >= {SCENARIO_BYTES // 1024} KB")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site-dir", type=Path, help="an existing build (default: build one)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args()
    if not LIGHTHOUSE.exists():
        sys.exit(f"{LIGHTHOUSE} is missing: run `npm ci` at the repository root")
    if not Path(os.environ.get("CHROME_PATH", CHROMIUM)).exists():
        sys.exit(f"{CHROMIUM} is missing: install it with `apt-get install chromium`")
    with tempfile.TemporaryDirectory() as tmp:
        site = args.site_dir
        if site is None:
            site = Path(tmp) / "site"
            build(site)
        handler = lambda *a, **k: GzipHandler(*a, directory=str(site), **k)  # noqa: E731
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_address[1]}"
        rows = []
        try:
            for name, path in PAGES.items():
                for preset in PRESETS:
                    result = lighthouse(base + path, preset, Path(tmp) / f"{name}-{preset}.json")
                    rows.append((name, path, preset, result))
        finally:
            server.shutdown()
    header = ["page", "preset", *CATEGORIES, "transferred", "uncompressed", "targets"]
    table = [header]
    missed = False
    for name, path, preset, result in rows:
        miss = misses(name, preset, result)
        missed |= bool(miss)
        table.append(
            [
                f"{name} {path}",
                preset,
                *(str(result["scores"][c]) for c in CATEGORIES),
                f"{result['transferred'] / 1024:.0f} KB",
                f"{result['uncompressed'] / 1024:.0f} KB",
                "met" if not miss else "MISSED: " + ", ".join(miss),
            ]
        )
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for i, row in enumerate(table):
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
        if i == 0:
            print("  ".join("-" * w for w in widths))
    for name, _, preset, result in rows:
        if result["failing"]:
            print(f"{name} {preset}: audits below 1: {', '.join(result['failing'])}")
    return 1 if missed and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())
