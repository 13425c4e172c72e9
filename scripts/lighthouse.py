#!/usr/bin/env python
"""Lighthouse over the site as production serves it: ``make lighthouse``.

Builds a scratch SQLite database with the bundled arena, collects the static files, starts gunicorn
with the repo's gunicorn.conf.py (``DEBUG=0``, ``SECURE_SSL_REDIRECT=0``: plain HTTP on loopback),
then runs ``tools/node_modules/.bin/lighthouse`` (``make node-tools``) in headless Chromium with its
mobile (default) and desktop presets on the home, arena, head-to-head, cell and flag-form pages.
Prints the four category scores per page and preset, and the arena and head-to-head pages' DOM
element counts and total blocking times (their audits ``dom-size`` and ``total-blocking-time``);
exits 1 when any score is below 100. Not part of ``make test``: ten Lighthouse runs take minutes.
Run from the project root:

    make lighthouse
    .venv/bin/python scripts/lighthouse.py --pages home,cell --presets desktop --keep /tmp/lh
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
LIGHTHOUSE = ROOT / "tools/node_modules/.bin/lighthouse"
CHROME = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
CHROME_FLAGS = (
    "--headless=new --no-sandbox --disable-gpu --disable-background-networking "
    "--disable-component-update --disable-sync --no-first-run"
)
ARENA = "durable-execution-engines"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
PRESETS = ("mobile", "desktop")
PAGES = ("home", "arena", "head-to-head", "cell", "flag")
# Audits a page fails on purpose, and why; a page whose only misses are these does not fail the run
# (its score is still printed as it is). None today: the flag form, one page per cell, is crawlable
# and names its cell's page as canonical instead of saying noindex.
DELIBERATE: dict[str, set[str]] = {}


def paths(cell: int) -> dict[str, str]:
    return {
        "home": "/",
        "arena": f"/arenas/{ARENA}/",
        "head-to-head": f"/arenas/{ARENA}/vs/inngest-vs-hatchet/",
        "cell": f"/cells/{cell}/",
        "flag": f"/cells/{cell}/flag/",
    }


def server_env(database: Path) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "0",
        "SECRET_KEY": "lighthouse-scratch-key-not-for-production-" + "x" * 20,
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "0",
        "SECURE_HSTS_SECONDS": "0",
        "DATABASE_URL": f"sqlite:///{database}",
        "WEB_CONCURRENCY": "2",
    }


def manage(env: dict[str, str], *args: str) -> None:
    subprocess.run(
        [PYTHON, "manage.py", *args], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 (our loopback server)
        return bytes(response.read())


@contextlib.contextmanager
def gunicorn(env: dict[str, str], log: Path) -> Iterator[str]:
    """The site under gunicorn (gunicorn.conf.py) on a free loopback port: yields its base URL."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [PYTHON, "-m", "gunicorn", "arena.wsgi:application", "--config", "gunicorn.conf.py"]
            + ["--bind", f"127.0.0.1:{port}"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"gunicorn exited:\n{log.read_text()[-3000:]}")
                with contextlib.suppress(OSError):
                    fetch(f"{base}/healthz")
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"gunicorn did not start:\n{log.read_text()[-3000:]}")
                time.sleep(0.2)
            yield base
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)


def lighthouse(url: str, preset: str, report: Path) -> dict[str, Any]:
    """One Lighthouse run of ``url`` (``preset``: mobile or desktop), its JSON report kept."""
    command = [str(LIGHTHOUSE), url, "--quiet", "--output=json", f"--output-path={report}"]
    command += [f"--chrome-flags={CHROME_FLAGS}", f"--only-categories={','.join(CATEGORIES)}"]
    if preset == "desktop":
        command.append("--preset=desktop")
    # A loaded machine now and then loses Chrome's trace of the load (NO_NAVSTART, a runtime error
    # in the report): such a run measured nothing, so it is run again, up to three times in all.
    for attempt in range(3):
        report.unlink(missing_ok=True)
        done = subprocess.run(command, env={**os.environ, "CHROME_PATH": CHROME}, check=False)
        result: dict[str, Any] = json.loads(report.read_text()) if report.exists() else {}
        if done.returncode == 0 and not result.get("runtimeError"):
            return result
        print(f"lighthouse: {url} ({preset}) failed, attempt {attempt + 1} of 3", file=sys.stderr)
    raise SystemExit(f"lighthouse could not measure {url} ({preset})")


def scores(result: dict[str, Any]) -> dict[str, int | None]:
    out: dict[str, int | None] = {}
    for name in CATEGORIES:
        score = result["categories"][name]["score"]
        out[name] = None if score is None else round(score * 100)
    return out


def failing_audits(result: dict[str, Any]) -> dict[str, str]:
    """The audits that cost a category points: their titles by id."""
    weighted = {
        ref["id"]
        for category in result["categories"].values()
        for ref in category["auditRefs"]
        if ref.get("weight")
    }
    audits = result["audits"]
    return {
        audit_id: audits[audit_id]["title"]
        for audit_id in sorted(weighted)
        if audits[audit_id].get("score") is not None and audits[audit_id]["score"] < 1
    }


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--pages", default=",".join(PAGES), help="comma-separated: " + ", ".join(PAGES)
    )
    parser.add_argument("--presets", default=",".join(PRESETS), help="mobile, desktop or both")
    parser.add_argument("--keep", type=Path, help="a folder to keep the JSON reports in")
    return parser.parse_args()


def prepare(env: dict[str, str]) -> None:
    manage(env, "migrate", "--noinput")
    manage(env, "collectstatic", "--noinput")
    manage(env, "load_bundled_arena")


def run(args: argparse.Namespace, scratch: Path) -> int:
    env = server_env(scratch / "lighthouse.sqlite3")
    prepare(env)
    reports = args.keep or scratch
    reports.mkdir(parents=True, exist_ok=True)
    rows: list[tuple[str, str, dict[str, int | None]]] = []
    arena_figures: list[str] = []
    problems: list[str] = []
    below: list[str] = []
    with gunicorn(env, scratch / "gunicorn.log") as base:
        matrix = json.loads(fetch(f"{base}/api/arenas/{ARENA}/matrix/"))
        cell = next(iter(matrix["stories"][0]["cells"].values()))["id"]
        addresses = paths(int(cell))
        for page in args.pages.split(","):
            for preset in args.presets.split(","):
                print(f"lighthouse {preset} {addresses[page]}", file=sys.stderr, flush=True)
                result = lighthouse(
                    base + addresses[page], preset, reports / f"{page}-{preset}.json"
                )
                found, missed = scores(result), failing_audits(result)
                rows.append((page, preset, found))
                problems += [f"{page} ({preset}) {a}: {t}" for a, t in missed.items()]
                if any(v is None or v < 100 for v in found.values()) and not (
                    set(missed) <= DELIBERATE.get(page, set())
                ):
                    below.append(f"{page} ({preset})")
                if page in ("arena", "head-to-head"):
                    audits = result["audits"]
                    arena_figures.append(
                        f"{page} ({preset}): {audits['dom-size']['numericValue']:.0f} DOM elements, "
                        f"total blocking time {audits['total-blocking-time']['numericValue']:.0f} ms"
                    )
    print("| page | preset | " + " | ".join(CATEGORIES) + " |")
    print("|---|---|" + "---:|" * len(CATEGORIES))
    for page, preset, found in rows:
        cells = " | ".join("—" if v is None else str(v) for v in found.values())
        print(f"| {page} | {preset} | {cells} |")
    print()
    for line in arena_figures:
        print(line)
    if problems:
        print("\nAudits below full marks:")
        for line in problems:
            print(f"- {line}")
    if below:
        print("\nBelow 100: " + ", ".join(below))
    for page, reasons in DELIBERATE.items():
        print(f"(on purpose on the {page} page: {', '.join(sorted(reasons))})")
    return 1 if below else 0


def main() -> int:
    if not LIGHTHOUSE.exists():
        print("Lighthouse is missing: make node-tools", file=sys.stderr)
        return 2
    if not Path(CHROME).exists():
        print(f"no Chromium at {CHROME} (CHROME_PATH)", file=sys.stderr)
        return 2
    args = arguments()
    with tempfile.TemporaryDirectory(prefix="arena-lighthouse-") as scratch:
        return run(args, Path(scratch))


if __name__ == "__main__":
    sys.exit(main())
