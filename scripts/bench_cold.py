#!/usr/bin/env python
"""The arena page with every cache off, against a trivial view: a quick, focused measurement
(about a minute) of what `make bench` reports in its "cold latency ×healthz" column.

It builds a temporary SQLite database as scripts/bench.py does (the bundled 6 × 53 arena and a
generated 30 × 300 one), starts one gunicorn (1 sync worker, DEBUG=0, PAGE_CACHE=0) and runs wrk
against /healthz and each arena page alternately, several rounds, so that the machine's drifting
load falls on both alike. It prints, per arena page, the medians over the rounds: requests per
second, p50 latency, and the ratios to /healthz (throughput and p50 latency). Run from the
project root:

    .venv/bin/python scripts/bench_cold.py                  # 3 rounds of 2 s each
    .venv/bin/python scripts/bench_cold.py --rounds 5 --duration 3
    .venv/bin/python scripts/bench_cold.py --database /tmp/db.sqlite3   # reuse a built database
    .venv/bin/python scripts/bench_cold.py --cpu 300        # worker CPU per request instead

``--cpu N`` measures what the load on the machine disturbs least: the gunicorn worker's own CPU
time (utime + stime from /proc/<pid>/stat) over N sequential requests to each URL, best of
``--rounds``, in milliseconds per request and as a ratio to /healthz's.
"""

from __future__ import annotations

import argparse
import io
import logging
import os
import statistics
import sys
import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path

from bench_tools import (
    BIG_PRODUCTS,
    BIG_SLUG,
    BIG_STORIES,
    ROOT,
    SEED_SLUG,
    SERVER_ENV,
    SERVER_ERRORS,
    Stats,
    fetch,
    gunicorn,
    markdown_table,
    ms,
    rate,
    ratio,
    say,
    wrk,
)


def build_database(path: Path) -> None:
    """Migrate ``path`` and load both arenas into it (skipped when it already holds them)."""
    import django

    django.setup()
    from django.core.management import call_command

    from arena.models import Arena

    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore", message="No directory at")
    quiet = {"stdout": io.StringIO(), "stderr": io.StringIO()}
    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)  # DEBUG=0: the manifest
    if not Arena.objects.filter(slug=SEED_SLUG).exists():
        call_command("load_bundled_arena", **quiet)
    if not Arena.objects.filter(slug=BIG_SLUG).exists():
        call_command(
            "generate_arena", slug=BIG_SLUG, products=BIG_PRODUCTS, stories=BIG_STORIES, **quiet
        )


def cold_ratios(
    base: str, paths: Sequence[str], *, rounds: int, duration: float, connections: int
) -> list[list[str]]:
    """For each path: /healthz then the path, ``rounds`` times; the medians and their ratios."""
    rows = []
    for path in paths:
        pairs: list[tuple[Stats, Stats]] = []
        for _ in range(rounds):
            ref = wrk(base, "/healthz", headers={}, duration=duration, connections=connections)
            page = wrk(base, path, headers={}, duration=duration, connections=connections)
            bad = page.count_not("2")
            if bad:
                raise RuntimeError(f"{path}: {bad} answers not 2xx ({page.status_text()})")
            pairs.append((ref, page))
        ref_rps = statistics.median(r.rps for r, _ in pairs)
        page_rps = statistics.median(p.rps for _, p in pairs)
        ref_p50 = statistics.median(r.p50_ms for r, _ in pairs)
        page_p50 = statistics.median(p.p50_ms for _, p in pairs)
        rows.append(
            [
                path,
                rate(ref_rps),
                rate(page_rps),
                ratio(ref_rps / page_rps if page_rps else None),
                f"{ms(ref_p50)} / {ms(page_p50)}",
                ratio(page_p50 / ref_p50 if ref_p50 else None),
            ]
        )
    return rows


def worker_pid(base: str) -> int:
    """The pid of the sync worker of the gunicorn bound to ``base``'s port (the forked child of
    the master; both carry the bind address on their command line)."""
    bind = base.removeprefix("http://").encode()
    found: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if bind not in (entry / "cmdline").read_bytes():
                continue
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        found[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    workers = [pid for pid, parent in found.items() if parent in found]
    if len(workers) != 1:
        raise RuntimeError(f"expected one gunicorn worker on {bind!r}, found {workers}")
    return workers[0]


def cpu_seconds(pid: int) -> float:
    """The process's user + system CPU time so far, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_per_request(base: str, pid: int, path: str, requests: int) -> float:
    """The worker's CPU milliseconds per request over ``requests`` sequential requests."""
    before = cpu_seconds(pid)
    for _ in range(requests):
        reply = fetch(base, path)
        if reply.status != 200:
            raise RuntimeError(f"{path}: {reply.status}")
    return (cpu_seconds(pid) - before) * 1000 / requests


def cpu_ratios(base: str, paths: Sequence[str], *, rounds: int, requests: int) -> list[list[str]]:
    """Per path: the worker's best CPU ms per request over ``rounds`` runs, against /healthz's."""
    pid = worker_pid(base)
    for path in ["/healthz", *paths]:  # warm every path's code and queries once
        cpu_per_request(base, pid, path, 5)
    ref = min(cpu_per_request(base, pid, "/healthz", requests) for _ in range(rounds))
    rows = [["/healthz", f"{ref:.2f}", "1.0×"]]
    for path in paths:
        best = min(cpu_per_request(base, pid, path, requests) for _ in range(rounds))
        rows.append([path, f"{best:.2f}", ratio(best / ref if ref else None)])
    return rows


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="healthz/page pairs per arena")
    parser.add_argument("--duration", type=float, default=2, help="seconds of each wrk run")
    parser.add_argument("--connections", type=int, default=2, help="wrk connections")
    parser.add_argument(
        "--cpu",
        type=int,
        metavar="N",
        help="measure the worker's CPU per request over N sequential requests instead of wrk",
    )
    parser.add_argument(
        "--database", type=Path, help="a SQLite file to build once and reuse (default: temporary)"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    tmp = tempfile.TemporaryDirectory(prefix="arena-bench-cold-")
    database = args.database or Path(tmp.name) / "bench.sqlite3"
    os.environ["DATABASE_URL"] = f"sqlite:///{database.resolve()}"
    os.environ.update(SERVER_ENV)
    os.environ["PAGE_CACHE"] = "0"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    sys.path.insert(0, str(ROOT))
    build_database(database)
    paths = [f"/arenas/{SEED_SLUG}/", f"/arenas/{BIG_SLUG}/"]
    with gunicorn({**SERVER_ENV, "PAGE_CACHE": "0"}) as base:
        if args.cpu:
            cpu_rows = cpu_ratios(base, paths, rounds=args.rounds, requests=args.cpu)
            say(
                f"## Worker CPU per request, cold (PAGE_CACHE=0)\n\ngunicorn, 1 sync worker, "
                f"DEBUG=0, SQLite; {args.cpu} sequential requests per URL, best of "
                f"{args.rounds}.\n"
            )
            say(markdown_table(["URL", "CPU ms / request", "×healthz"], cpu_rows))
            tmp.cleanup()
            return
        rows = cold_ratios(
            base,
            paths,
            rounds=args.rounds,
            duration=args.duration,
            connections=args.connections,
        )
    say(
        f"## The arena page cold (PAGE_CACHE=0) against /healthz\n\ngunicorn, 1 sync worker, "
        f"DEBUG=0, SQLite; wrk -t1 -c{args.connections} -d{args.duration:g}s, /healthz then the "
        f"page, {args.rounds} rounds (medians).\n"
    )
    say(
        markdown_table(
            [
                "page",
                "healthz req/s",
                "page req/s",
                "throughput: healthz / page",
                "p50 ms healthz / page",
                "p50 latency ×healthz",
            ],
            rows,
        )
    )
    for text in SERVER_ERRORS:
        say("```\n" + text + "\n```\n")
    tmp.cleanup()


if __name__ == "__main__":
    main()
