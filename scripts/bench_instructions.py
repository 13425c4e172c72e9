#!/usr/bin/env python
"""The arena page with every cache off against a trivial view, counted in CPU instructions: what a
change to the cold page saves, measured the same on a quiet machine and a busy one.

Timings on a shared machine drift by a tenth or more from one run to the next, more than most
single changes to a page save. valgrind's callgrind counts the instructions the process runs
instead, which repeat to within a fraction of a percent. Each URL is measured in a process of its
own under callgrind with counting off while Django starts and the page is rendered a few times
(its code and queries warmed), then on for N requests made through the WSGI application as
gunicorn makes them (DEBUG=0, PAGE_CACHE=0, the production settings), off again. It prints
millions of instructions per request and the ratio to /healthz's. What it leaves out is what
gunicorn and the kernel do per request, the same for every page; `make bench` measures the whole.

    .venv/bin/python scripts/bench_instructions.py                 # about two minutes
    .venv/bin/python scripts/bench_instructions.py --requests 10 --database /tmp/db.sqlite3
    .venv/bin/python scripts/bench_instructions.py --path /arenas/big/

Needs valgrind (Debian's package). The database is built as scripts/bench_cold.py builds it.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from bench_tools import BIG_SLUG, PROXY_HEADERS, ROOT, SEED_SLUG, SERVER_ENV, markdown_table, ratio

WARM_UP = 5


def child(path: str, requests: int) -> None:
    """Under callgrind: the site's WSGI application, warmed on ``path``, then ``requests`` of it
    counted."""
    sys.path.insert(0, str(ROOT))
    import logging

    from config.wsgi import application

    logging.disable(logging.CRITICAL)
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": path.partition("?")[0],
        "QUERY_STRING": path.partition("?")[2],
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": "127.0.0.1",
        **{f"HTTP_{k.upper().replace('-', '_')}": v for k, v in PROXY_HEADERS.items()},
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
        "wsgi.version": (1, 0),
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }

    def request() -> None:
        statuses: list[str] = []
        body = application(
            {**environ, "wsgi.input": io.BytesIO()},
            lambda status, headers, exc_info=None: statuses.append(status),
        )
        b"".join(body)  # (as a server sends it)
        body.close()
        if not statuses[0].startswith("200"):
            raise SystemExit(f"{path}: {statuses[0]}")

    for _ in range(WARM_UP):
        request()
    counting = ["callgrind_control", "-i"]
    subprocess.run([*counting, "on", str(os.getpid())], check=True, capture_output=True)
    for _ in range(requests):
        request()
    subprocess.run([*counting, "off", str(os.getpid())], check=True, capture_output=True)


def instructions(path: str, requests: int) -> float:
    """Instructions per request of ``path``, counted by callgrind in a process of its own."""
    command = ["valgrind", "--tool=callgrind", "--instr-atstart=no"]
    command += ["--callgrind-out-file=/dev/null", sys.executable, __file__, "--child", path]
    command += ["--requests", str(requests)]
    # (the same hash seed every run: the order of sets and dicts of strings, and so the work)
    done = subprocess.run(
        command, cwd=ROOT, env={**os.environ, "PYTHONHASHSEED": "0"}, capture_output=True, text=True
    )
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode or found is None:
        raise SystemExit(f"{path}: callgrind failed\n{done.stderr[-3000:]}")
    return int(found.group(1)) / requests


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=5, help="counted requests per URL")
    parser.add_argument(
        "--path",
        action="append",
        help="a page to measure (repeatable; default: both arena pages)",
    )
    parser.add_argument(
        "--database", type=Path, help="a SQLite file to build once and reuse (default: temporary)"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    if args.child:
        child(args.child, args.requests)
        return
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed: apt-get install valgrind")
    tmp = tempfile.TemporaryDirectory(prefix="arena-bench-instr-")
    database = args.database or Path(tmp.name) / "bench.sqlite3"
    os.environ.update(SERVER_ENV)
    os.environ.update({"DATABASE_URL": f"sqlite:///{database.resolve()}", "PAGE_CACHE": "0"})
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    sys.path.insert(0, str(ROOT))
    from bench_cold import build_database

    build_database(database)
    paths = args.path or [f"/arenas/{SEED_SLUG}/", f"/arenas/{BIG_SLUG}/"]
    reference = instructions("/healthz", args.requests)
    rows = [["/healthz", f"{reference / 1e6:.2f}", "1.0×"]]
    for path in paths:
        count = instructions(path, args.requests)
        rows.append([path, f"{count / 1e6:.2f}", ratio(count / reference)])
    print(
        f"## Instructions per request, cold (PAGE_CACHE=0)\n\ncallgrind, DEBUG=0, SQLite, the "
        f"WSGI application called in-process; {args.requests} requests per URL after "
        f"{WARM_UP} uncounted.\n"
    )
    print(markdown_table(["URL", "M instructions / request", "×healthz"], rows))
    tmp.cleanup()


if __name__ == "__main__":
    main()
