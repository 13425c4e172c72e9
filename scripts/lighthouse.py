#!/usr/bin/env python
"""Lighthouse over the site as production serves it (``make lighthouse``): a scratch SQLite database
with the bundled arena, gunicorn with DEBUG=0 on loopback, Lighthouse (``make node-tools``) in
headless Chromium, mobile and desktop, on the home, arena, head-to-head, cell and flag-form pages.
Prints the scores, the arena and head-to-head pages' DOM size and total blocking time, and every
audit below full marks; exits 1 when a score is below 100. Run from the project root:

    make lighthouse
    .venv/bin/python scripts/lighthouse.py --pages home,cell --presets desktop --keep /tmp/lh
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from servers import fetch, gunicorn

ROOT = Path(__file__).resolve().parent.parent
LIGHTHOUSE = ROOT / "tools/node_modules/.bin/lighthouse"
CHROME = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
CHROME_FLAGS = (
    "--headless=new --no-sandbox --disable-gpu --disable-background-networking "
    "--disable-component-update --disable-sync --no-first-run"
)
ARENA = "durable-execution-engines"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
FIGURES = ("dom-size", "total-blocking-time")  # of the arena and head-to-head pages
PAGES = {
    "home": "/",
    "arena": f"/arenas/{ARENA}/",
    "head-to-head": f"/arenas/{ARENA}/vs/inngest-vs-hatchet/",
    "cell": "/cells/{cell}/",
    "flag": "/cells/{cell}/flag/",
}


def lighthouse(url: str, preset: str, report: Path) -> dict[str, Any]:
    """One Lighthouse run of ``url`` with ``preset`` (mobile or desktop), its JSON report kept."""
    command = [str(LIGHTHOUSE), url, "--quiet", "--output=json", f"--output-path={report}"]
    command += [f"--chrome-flags={CHROME_FLAGS}", f"--only-categories={','.join(CATEGORIES)}"]
    command += ["--preset=desktop"] if preset == "desktop" else []
    # A loaded machine now and then loses Chrome's trace of the load (a runtime error in the
    # report): such a run measured nothing, so it is run again, up to three times in all.
    for attempt in range(3):
        report.unlink(missing_ok=True)
        done = subprocess.run(command, env={**os.environ, "CHROME_PATH": CHROME}, check=False)
        result: dict[str, Any] = json.loads(report.read_text()) if report.exists() else {}
        if done.returncode == 0 and not result.get("runtimeError"):
            return result
        print(f"lighthouse: {url} ({preset}) failed, attempt {attempt + 1} of 3", file=sys.stderr)
    raise SystemExit(f"lighthouse could not measure {url} ({preset})")


def below_full_marks(result: dict[str, Any]) -> dict[str, str]:
    """The audits that cost a category points: their titles by id."""
    audits, refs = result["audits"], result["categories"].values()
    weighted = sorted({ref["id"] for c in refs for ref in c["auditRefs"] if ref.get("weight")})
    return {a: audits[a]["title"] for a in weighted if audits[a].get("score") not in (None, 1)}


def run(args: argparse.Namespace, scratch: Path) -> int:
    env = {
        "DATABASE_URL": f"sqlite:///{scratch / 'lighthouse.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "0",
        "SECRET_KEY": "lighthouse-scratch-key-not-for-production-" + "x" * 20,
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "0",
        "SECURE_HSTS_SECONDS": "0",
    }
    for command in (["migrate"], ["collectstatic", "--noinput"], ["load_bundled_arena"]):
        manage = [sys.executable, "manage.py", *command]
        subprocess.run(
            manage, cwd=ROOT, env=os.environ | env, check=True, stdout=subprocess.DEVNULL
        )
    reports = args.keep or scratch
    reports.mkdir(parents=True, exist_ok=True)
    rows, figures, missed, below = [], [], [], []
    with gunicorn(env, workers=2) as base:
        matrix = json.loads(fetch(base, f"/api/arenas/{ARENA}/matrix/", {})[2])
        cell = next(iter(matrix["stories"][0]["cells"].values()))["id"]
        for page in args.pages.split(","):
            for preset in args.presets.split(","):
                url = base + PAGES[page].format(cell=cell)
                print(f"lighthouse {preset} {url}", file=sys.stderr, flush=True)
                result = lighthouse(url, preset, reports / f"{page}-{preset}.json")
                scores = [result["categories"][name]["score"] for name in CATEGORIES]
                shown = ["—" if s is None else str(round(s * 100)) for s in scores]
                rows.append(f"| {page} | {preset} | " + " | ".join(shown) + " |")
                missed += [
                    f"- {page} ({preset}) {a}: {t}" for a, t in below_full_marks(result).items()
                ]
                if any(s is None or s < 1 for s in scores):
                    below.append(f"{page} ({preset})")
                if page in ("arena", "head-to-head"):
                    dom, tbt = (result["audits"][a]["numericValue"] for a in FIGURES)
                    figures.append(f"{page} ({preset}): {dom:.0f} DOM elements, TBT {tbt:.0f} ms")
    print("| page | preset | " + " | ".join(CATEGORIES) + " |")
    print("|---|---|" + "---:|" * len(CATEGORIES))
    print("\n".join(rows + [""] + figures))
    if missed:
        print("\nAudits below full marks:\n" + "\n".join(missed))
    if below:
        print("\nBelow 100: " + ", ".join(below))
    return 1 if below else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split(":")[0])
    parser.add_argument("--pages", default=",".join(PAGES), help="of " + ",".join(PAGES))
    parser.add_argument("--presets", default="mobile,desktop", help="mobile, desktop or both")
    parser.add_argument("--keep", type=Path, help="a folder to keep the JSON reports in")
    args = parser.parse_args()
    for needed, how in ((LIGHTHOUSE, "make node-tools"), (Path(CHROME), "CHROME_PATH")):
        if not needed.exists():
            print(f"{needed} is missing ({how})", file=sys.stderr)
            return 2
    with tempfile.TemporaryDirectory(prefix="arena-lighthouse-") as scratch:
        return run(args, Path(scratch))


if __name__ == "__main__":
    sys.exit(main())
