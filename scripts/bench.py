#!/usr/bin/env python
"""The site's benchmark: pages over HTTP (gunicorn + wrk), query counts, recompute, the moderators'
queue and flag submissions on PostgreSQL, printed as markdown tables in one run.

Standalone: builds a temporary database (migrated; the bundled seed arena, 6 × 53, and a generated
one, 30 × 300), starts its own gunicorn processes (``DEBUG=0``, the project's settings and
middleware) on loopback ports and drives them with ``wrk`` (``make bench-deps`` installs it). Pages,
recompute and queue run on a temporary SQLite file unless DATABASE_URL names PostgreSQL; the flag
part always runs on PostgreSQL (re-running this script under ``scripts/with-postgres.sh``). Run from
the project root:

    make bench                                   # or: .venv/bin/python scripts/bench.py
    .venv/bin/python scripts/bench.py --only pages --duration 5
"""

from __future__ import annotations

import argparse
import io
import logging
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Sequence
from pathlib import Path

from bench_pages import arena_size, database_label, run_pages, run_queries, run_queue
from bench_tools import (
    BIG_PRODUCTS,
    BIG_SLUG,
    BIG_STORIES,
    EXPLANATION,
    FLOOD_ENV,
    PARTS,
    ROOT,
    SEED_SLUG,
    SERVER_ENV,
    SERVER_ERRORS,
    fetch,
    gunicorn,
    markdown_table,
    ms,
    rate,
    ratio,
    redis_server,
    say,
    wrk,
    wrk_finish,
    wrk_start,
)


def run_recompute(big, args) -> None:
    from arena.recompute import arena_recompute_scores

    say("## Recompute\n")
    times = []
    for _ in range(args.recompute_runs):
        start = time.perf_counter()
        arena_recompute_scores(arena_id=big.pk)
        times.append((time.perf_counter() - start) * 1000)
    say(f"arena.recompute.arena_recompute_scores, in-process, {database_label()}.\n")
    say(
        markdown_table(
            ["arena", "runs", "median ms", "min ms", "max ms"],
            [
                [
                    arena_size(big),
                    len(times),
                    ms(statistics.median(times)),
                    ms(min(times)),
                    ms(max(times)),
                ]
            ],
        )
    )
    say()


def flag_configs(spec: str) -> list[tuple[int, str]]:
    """``"1,2,4"`` → [(1, "sync"), (2, "gthread"), (4, "gthread")]: threads per worker."""
    configs = []
    for part in spec.split(","):
        threads = int(part)
        configs.append((threads, "sync" if threads == 1 else "gthread"))
    return configs


def run_flags(seed, big, args) -> None:
    """Flag submissions on PostgreSQL with 3 workers: one client, 20 clients, the arena page's p99
    beside that flood."""
    from stories.models import Cell

    say("## Flag submit (POST /api/flags/)\n")
    if database_label() != "PostgreSQL":
        say("skipped: needs PostgreSQL (run under scripts/with-postgres.sh)\n")
        return
    cells = list(
        Cell.objects.filter(story__arena=big).on_pages().order_by("pk").values_list("pk", flat=True)
    )
    cells_file = tempfile.NamedTemporaryFile("w", prefix="arena-bench-cells-", delete=False)
    cells_file.write("\n".join(str(pk) for pk in cells) + "\n")
    cells_file.close()
    arena_path = f"/arenas/{seed.slug}/"
    workers = args.flag_workers
    with redis_server() as redis_url:
        env = {**SERVER_ENV, **FLOOD_ENV, "PAGE_CACHE": "1"}
        if redis_url:
            env["REDIS_URL"] = redis_url
        say(
            f"PostgreSQL (scripts/with-postgres.sh: fsync off), "
            f"{'Redis (a throwaway redis-server) as the cache' if redis_url else 'local-memory cache'}"
            f", gunicorn {workers} workers, DEBUG=0, PAGE_CACHE=1, FLAG_RATE={FLOOD_ENV['FLAG_RATE']}, "
            f"API_ANON_RATE lifted, TRUSTED_PROXIES=1 (each client its own X-Forwarded-For address); "
            f"JSON {{cell, reason, explanation}} to a distinct cell of the {arena_size(big)} arena "
            f"per request. wrk -t1 -d{args.flood_duration:g}s: one client -c1; "
            f"{args.clients} clients -c{args.clients}; the {arena_size(seed)} arena page (warm) "
            f"probed by a second wrk -c1 alone, then during the flood; "
            f"{'Connection: close on every request' if args.connection_close else 'keep-alive'}"
            " (the sync worker closes every connection).\n"
        )
        rows = []
        phase = 0
        for threads, worker_class in flag_configs(args.flag_threads):
            with gunicorn(env, workers=workers, threads=threads, worker_class=worker_class) as base:
                fetch(base, arena_path)  # warm-up (fills the page cache)

                def flood(clients: int, connections: int, base: str = base) -> subprocess.Popen:
                    nonlocal phase
                    phase += 1
                    return wrk_start(
                        base,
                        "/api/flags/",
                        headers={},
                        duration=args.flood_duration,
                        connections=connections,
                        script_args=(
                            "flags",
                            cells_file.name,
                            str(clients),
                            str(phase),
                            EXPLANATION,
                            "close" if args.connection_close else "keep-alive",
                        ),
                    )

                wrk_finish(flood(2, 2))  # warm-up: every worker, connections, statements
                one = wrk_finish(flood(1, 1))
                probe = {"Connection": "close"} if args.connection_close else {}
                alone = wrk(
                    base, arena_path, headers=probe, duration=args.flood_duration, connections=1
                )
                flooding = flood(args.clients, args.clients)
                during = wrk(
                    base, arena_path, headers=probe, duration=args.flood_duration, connections=1
                )
                many = wrk_finish(flooding)
            bad = one.count_not("2") + many.count_not("2")
            bad_text = str(bad)
            if bad:
                bad_text += (
                    f" (1 client: {one.status_text()}; {args.clients}: {many.status_text()})"
                )
            label = f"{workers} × {threads} ({worker_class})"
            rows.append(
                [
                    label,
                    ms(one.p50_ms),
                    ms(one.p99_ms),
                    rate(many.rps),
                    ms(many.p50_ms),
                    ms(many.p99_ms),
                    bad_text,
                    ms(alone.p99_ms),
                    ms(during.p99_ms),
                    ratio(during.p99_ms / alone.p99_ms if alone.p99_ms else None),
                ]
            )
    os.unlink(cells_file.name)
    say(
        markdown_table(
            [
                "workers × threads",
                "1 client p50 ms",
                "1 client p99 ms",
                f"{args.clients} clients flags/s",
                f"{args.clients} clients p50 ms",
                f"{args.clients} clients p99 ms",
                "non-2xx",
                "arena p99 ms alone",
                "arena p99 ms in flood",
                "flood / alone",
            ],
            rows,
        )
    )
    say()


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only",
        default=",".join(PARTS),
        help=f"comma-separated parts to run (default all: {','.join(PARTS)})",
    )
    parser.add_argument("--duration", type=int, default=2, help="seconds of wrk per page URL")
    parser.add_argument("--connections", type=int, default=2, help="wrk connections per page URL")
    parser.add_argument(
        "--pair-duration",
        type=int,
        default=1,
        help="seconds of the /healthz run before each page row (its ratio's reference)",
    )
    parser.add_argument(
        "--cold-rounds",
        type=int,
        default=5,
        help="rounds of /healthz then the arena page with every cache off (the median is shown)",
    )
    parser.add_argument(
        "--flood-duration", type=int, default=3, help="seconds of each flag-submit wrk run"
    )
    parser.add_argument("--clients", type=int, default=20, help="concurrent flag clients")
    parser.add_argument("--flag-workers", type=int, default=3, help="gunicorn workers, flag part")
    parser.add_argument(
        "--flag-threads",
        default="1,2,4",
        help="threads per worker to compare in the flag part (1: sync, more: gthread)",
    )
    parser.add_argument(
        "--connection-close",
        action="store_true",
        help="flag part: no keep-alive (Connection: close), as behind a proxy speaking HTTP/1.0",
    )
    parser.add_argument("--recompute-runs", type=int, default=3)
    parser.add_argument("--queue-runs", type=int, default=5)
    args = parser.parse_args(argv)
    parts = [p.strip() for p in args.only.split(",") if p.strip()]
    unknown = set(parts) - set(PARTS)
    if unknown:
        parser.error(f"unknown part(s): {', '.join(sorted(unknown))}; choose from {PARTS}")
    args.parts = parts
    return args


def passthrough(args: argparse.Namespace, only: str) -> list[str]:
    """The command line that runs part ``only`` of this bench with the same knobs."""
    return [
        sys.executable,
        str(Path(__file__).resolve()),
        "--only",
        only,
        "--flood-duration",
        f"{args.flood_duration:g}",
        "--clients",
        str(args.clients),
        "--flag-workers",
        str(args.flag_workers),
        "--flag-threads",
        args.flag_threads,
        *(["--connection-close"] if args.connection_close else []),
    ]


def header() -> None:
    commit = subprocess.run(
        ["git", "log", "-1", "--format=%h %s"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.strip()
    wrk_version = subprocess.run(["wrk", "-v"], capture_output=True, text=True).stdout.split("\n")[
        0
    ]
    say("# make bench\n")
    say(
        f"{time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores (load average "
        f"{', '.join(f'{x:.2f}' for x in os.getloadavg())} at start), Python "
        f"{platform.python_version()}, {wrk_version.split(' [')[0] or 'wrk'}; commit "
        f"{commit[:70]}{' (with uncommitted changes)' if dirty else ''}.\n"
    )


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    if shutil.which("wrk") is None and {"pages", "flags"} & set(args.parts):
        sys.exit("wrk is not installed: make bench-deps (or apt-get install wrk)")
    in_child = os.environ.get("ARENA_BENCH_CHILD") == "1"
    if not in_child:
        header()
    tmp = tempfile.TemporaryDirectory(prefix="arena-bench-")
    if database_label() != "PostgreSQL":
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp.name}/bench.sqlite3"
    os.environ.update(SERVER_ENV)
    os.environ["PAGE_CACHE"] = "0"  # in this process: query counts of a rendering request
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    sys.path.insert(0, str(ROOT))

    # The settings above must be in the environment before Django loads, and models can only be
    # imported once django.setup() has filled the app registry: these imports cannot move up.
    import django

    django.setup()

    from django.core.management import call_command

    from arena.models import Arena

    local_parts = [p for p in args.parts if p != "flags" or database_label() == "PostgreSQL"]
    if local_parts:
        logging.disable(logging.WARNING)  # the 404 row logs "Not Found" on every run
        warnings.filterwarnings("ignore", message="No directory at")
        quiet = {"stdout": io.StringIO(), "stderr": io.StringIO()}
        call_command("migrate", verbosity=0)
        if os.environ.get("ARENA_BENCH_STATIC_READY") != "1":
            call_command("collectstatic", interactive=False, verbosity=0)  # DEBUG=0: manifest
        call_command("load_bundled_arena", **quiet)
        call_command(
            "generate_arena",
            slug=BIG_SLUG,
            products=BIG_PRODUCTS,
            stories=BIG_STORIES,
            **quiet,
        )
        arenas = [Arena.objects.get(slug=SEED_SLUG), Arena.objects.get(slug=BIG_SLUG)]
        if "queries" in args.parts:
            run_queries(arenas)
        if "pages" in args.parts:
            run_pages(arenas, args)
        if "recompute" in args.parts:
            run_recompute(arenas[1], args)
        if "queue" in args.parts:
            run_queue(arenas[1], args)
        if "flags" in local_parts:
            run_flags(arenas[0], arenas[1], args)
    if "flags" in args.parts and "flags" not in local_parts:
        # The flag part on a throwaway PostgreSQL cluster: this script again, under with-postgres.
        sys.stdout.flush()
        env = {**os.environ, "ARENA_BENCH_CHILD": "1"}
        if local_parts:
            env["ARENA_BENCH_STATIC_READY"] = "1"
        env.pop("DATABASE_URL", None)
        done = subprocess.run(
            ["bash", str(ROOT / "scripts" / "with-postgres.sh"), *passthrough(args, "flags")],
            cwd=ROOT,
            env=env,
        )
        if done.returncode:
            say(f"\nflag part failed (exit {done.returncode})")
    if SERVER_ERRORS:
        say("## Server errors (the first of each gunicorn)\n")
        for text in SERVER_ERRORS:
            say("```\n" + text + "\n```\n")
    tmp.cleanup()


if __name__ == "__main__":
    main()
