#!/usr/bin/env python
"""The site's speed against its targets, as ratios to a trivial view (/healthz): ``make bench``.

A temporary database with the bundled arena and a generated 30 × 300 one; gunicorn (DEBUG=0) on
loopback, driven by wrk (``make bench-deps``), else a small Python client. The arena page warm,
uncached (PAGE_CACHE=0) and revalidated (304); queries per page; the 30 × 300 recompute; then, on a
throwaway PostgreSQL (scripts/with-postgres.sh), flag submit without and with a broker.
"""

from __future__ import annotations

import argparse
import functools
import io
import itertools
import json
import logging
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from servers import ROOT, fetch, gunicorn, redis_server

say = functools.partial(print, flush=True)  # in order with the flag part's process
LUA = ROOT / "scripts" / "bench.lua"
WRK = shutil.which("wrk")
PARTS = ("pages", "queries", "recompute", "flags")
SEED, BIG = "durable-execution-engines", "big"
CLIENTS = 20
GZIP = {"Accept-Encoding": "gzip"}
EXPLANATION = "Benchmark flag: the evidence for this verdict looks out of date to me."
# Production settings, with the limits that would turn a load test into 429s lifted. Loopback is
# one trusted proxy, so each flag client can be its own X-Forwarded-For address.
ENV = {
    "DEBUG": "0",
    "SECRET_KEY": "bench-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
    "ALLOWED_HOSTS": "127.0.0.1,localhost,testserver",
    "SECURE_SSL_REDIRECT": "0",
    "TRUSTED_PROXIES": "1",
    "API_ANON_RATE": "100000000/minute",
    "PAGE_MISS_RATE": "100000000/minute",
    "FLAG_RATE": "100000000/hour",
    "LOG_LEVEL": "ERROR",
}


@dataclass
class Stats:
    rps: float  # answers a second
    p50_ms: float
    p99_ms: float
    unexpected: int  # answers with another status than the one expected, and socket errors


@dataclass
class Flood:
    """Flag submissions: request i flags cell i (of ``cells``) as client i mod ``clients``."""

    cells: list[int]
    cells_file: str
    clients: int
    phase: int  # a run's clients are addresses of their own: 10.<phase>.x.y
    start: int = 0  # its first cell's index: a run flags the cells after the last run's

    def request(self, i: int) -> tuple[dict[str, str], bytes]:
        client = i % self.clients
        body = {"cell": self.cells[(self.start + i) % len(self.cells)], "reason": "other"}
        address = f"10.{self.phase}.{client // 256}.{client % 256}"
        headers = {"Content-Type": "application/json", "X-Forwarded-For": address}
        return headers, json.dumps({**body, "explanation": EXPLANATION}).encode()


def parse_wrk(output: str) -> Stats:
    """The ``BENCH requests seconds p50_us p99_us unexpected`` line scripts/bench.lua prints."""
    for line in output.splitlines():
        if line.startswith("BENCH "):
            n, seconds, p50, p99, bad = line.split()[1:]
            return Stats(int(n) / float(seconds), int(p50) / 1000, int(p99) / 1000, int(bad))
    raise RuntimeError(f"wrk printed no result line:\n{output[-2000:]}")


def load(
    base: str, path: str, seconds: int, *, connections=2, headers=None, expected=200, flood=None
):  # type: ignore[no-untyped-def]
    """``seconds`` of requests from ``connections`` clients: wrk when installed, else threads."""
    headers = headers or {}
    if WRK:
        command = [WRK, "-t1", f"-c{connections}", f"-d{seconds}s", "--timeout", "30s"]
        command += ["-s", str(LUA), *(f"-H{k}: {v}" for k, v in headers.items()), base + path]
        command += ["--", str(expected)]
        if flood:
            command += [flood.cells_file, str(flood.clients), str(flood.phase), EXPLANATION]
            command.append(str(flood.start))
        return parse_wrk(subprocess.run(command, capture_output=True, text=True).stdout)
    # else a thread per connection, sharing one request counter
    stop, counter = time.monotonic() + seconds, itertools.count()
    method = "POST" if flood else "GET"
    times: list[float] = []
    bad: list[int] = []

    def client(_: int) -> None:
        while time.monotonic() < stop:
            extra, body = flood.request(next(counter)) if flood else ({}, None)
            start = time.perf_counter()
            try:
                status = fetch(base, path, {**headers, **extra}, method, body)[0]
            except OSError:
                status = 0
            times.append((time.perf_counter() - start) * 1000)
            if status != expected:
                bad.append(status)

    start = time.perf_counter()
    with ThreadPoolExecutor(connections) as pool:
        list(pool.map(client, range(connections)))
    cuts = statistics.quantiles(times if len(times) > 1 else [0.0, 0.0], n=100, method="inclusive")
    return Stats(len(times) / (time.perf_counter() - start), cuts[49], cuts[98], len(bad))


def table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|---" + "|---:" * (len(headers) - 1) + "|"]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])


def ratio_row(what: str, page: Stats, healthz: Stats, at_least: float) -> list[str]:
    """A page's throughput as a fraction of /healthz's, against the target it must reach."""
    ratio = page.rps / healthz.rps if healthz.rps else 0.0
    shown = f"{ratio:.2f}×" + (f" (1/{1 / ratio:.0f})" if 0 < ratio < 0.5 else "")
    target = f"≥ {at_least:.2f}×" + (f" (1/{1 / at_least:.0f})" if at_least < 0.5 else "")
    verdict = "ok" if ratio >= at_least and not page.unexpected else "MISSED"
    extra = f", {page.unexpected} unexpected" if page.unexpected else ""
    return [what, f"{page.rps:.0f}{extra}", f"{healthz.rps:.0f}", shown, target, verdict]


def flag_row(broker: str, ones: list[Stats], manys: list[Stats]) -> list[str]:
    """The round of median p50 (1 client), of median answers/s (20), against their targets."""
    bad = sum(run.unexpected for run in ones + manys)
    one = sorted(ones, key=lambda run: run.p50_ms)[len(ones) // 2]
    many = sorted(manys, key=lambda run: run.rps)[len(manys) // 2]
    ok = one.p50_ms <= 10 and many.rps >= 200 and many.p99_ms <= 150 and not bad
    figures = f"{one.p50_ms:.1f} {many.rps:.0f} {many.p99_ms:.0f} {bad}".split()
    return [broker, *figures, "ok" if ok else "MISSED"]


def page_row(base: str, arena, kind: str, target: float, args) -> list[str]:  # type: ignore[no-untyped-def]
    """The arena page's throughput over /healthz's, each run just after a /healthz run on the same
    gunicorn (the machine's load drifts): the round of median ratio."""
    path = f"/arenas/{arena.slug}/"
    status, reply, _ = fetch(base, path, GZIP)
    etag = {"If-None-Match": reply.get("etag", "")} if kind == "304" else {}
    rounds = []
    for _ in range(args.rounds):
        healthz = load(base, "/healthz", args.duration, headers=GZIP)
        page = load(base, path, args.duration, headers=GZIP | etag, expected=304 if etag else 200)
        rounds.append((page.rps / healthz.rps if healthz.rps else 0, page, healthz))
    _, page, healthz = sorted(rounds, key=lambda r: r[0])[len(rounds) // 2]
    what = f"arena page {size(arena)}, {kind}" + ("" if status == 200 else f" ({status})")
    return ratio_row(what, page, healthz, target)


def run_pages(arenas, args) -> None:  # type: ignore[no-untyped-def]
    say("## Pages (throughput as a fraction of /healthz's)\n")
    say(
        f"gunicorn, 1 sync worker, DEBUG=0, {database()}, the page cache in local memory; "
        f"{client_text(args)}, Accept-Encoding: gzip. Each figure: {args.rounds} round(s) of "
        "/healthz then the page, the round of median ratio shown.\n"
    )
    rows = []
    for cache, kinds in (("1", {"warm": 0.9, "304": 0.9}), ("0", {"uncached": 1 / 25})):
        with gunicorn({**ENV, "PAGE_CACHE": cache}) as base:
            rows += [page_row(base, a, k, t, args) for k, t in kinds.items() for a in arenas]
    say(table(["page", "req/s", "/healthz req/s", "× /healthz", "target", ""], rows) + "\n")


def query_pages(arena) -> list[tuple[str, str, dict[str, str]]]:  # type: ignore[no-untyped-def]
    a, b = arena.products.order_by("position")[:2]
    story = arena.stories.order_by("position").first()
    cell = story.cells.filter(product=a).first()
    base, hx = f"/arenas/{arena.slug}/", {"HX-Request": "true", "HX-Target": "matrix"}
    return [
        ("arena", base, {}),
        ("arena, htmx matrix (persona filter)", f"{base}?persona={story.persona.slug}", hx),
        ("head-to-head", f"{base}vs/{a.slug}-vs-{b.slug}/", {}),
        ("product", f"{base}products/{a.slug}/", {}),
        ("story", f"{base}stories/{story.pk}/", {}),
        ("cell", f"/cells/{cell.pk}/", {}),
        ("disputes", f"{base}disputes/", {}),
        ("API arena", f"/api/arenas/{arena.slug}/", {}),
        ("API matrix", f"/api/arenas/{arena.slug}/matrix/", {}),
        ("export JSON", f"{base}export.json", {}),
    ]


def run_queries(arenas) -> None:  # type: ignore[no-untyped-def]
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from web.http.pagekeys import VERSIONS  # (reused for a second: re-read each time, not by clock)

    say("## Queries per page\n")
    say(f"In-process (django.test.Client), PAGE_CACHE=0, {database()}; a page's second request.\n")
    client, counts = Client(), {}
    for arena in arenas:
        for name, path, headers in query_pages(arena):
            client.get(path, headers=headers)
            connection.queries_log.clear()  # a full log (its maxlen) would hide new queries
            VERSIONS.clear()
            with CaptureQueriesContext(connection) as queries:
                response = client.get(path, headers=headers)
                if response.streaming:
                    b"".join(response.streaming_content)
            note = "" if response.status_code == 200 else f" ({response.status_code})"
            counts.setdefault(name, []).append(f"{len(queries)}{note}")
    rows = [[name, *n, "yes" if n[0] == n[-1] else "NO"] for name, n in counts.items()]
    say(table(["page", *(size(a) for a in arenas), "constant"], rows) + "\n")


def run_recompute(big) -> None:  # type: ignore[no-untyped-def]
    from django.core.management import call_command

    times = []
    for _ in range(3):
        start = time.perf_counter()
        call_command("recompute_scores", big.slug, stdout=io.StringIO())
        times.append(time.perf_counter() - start)
    best = statistics.median(times)
    say(f"## Recompute\n\n`recompute_scores` of the {size(big)} arena, in-process, {database()}:")
    say(f"median of 3 runs {best:.2f} s (target ≤ 0.5 s: {'ok' if best <= 0.5 else 'MISSED'}).\n")


def run_flags(big, args) -> None:  # type: ignore[no-untyped-def]
    from stories.models import Cell

    cells = list(Cell.objects.filter(story__arena=big).order_by("pk").values_list("pk", flat=True))
    cells_file = tempfile.NamedTemporaryFile("w", prefix="arena-bench-cells-")
    cells_file.write("".join(f"{pk}\n" for pk in cells))
    cells_file.flush()
    rows, phase, filed = [], itertools.count(1), [0]  # filed: how many cells the runs took
    with redis_server() as redis:
        cache = {"REDIS_URL": f"{redis}/0"} if redis else {}
        brokers = {"none (mail: send_notices)": {}}
        if redis:
            brokers["Redis"] = {"CELERY_BROKER_URL": f"{redis}/1"}
        for broker, env in brokers.items():
            with gunicorn({**ENV, "PAGE_CACHE": "1", **cache, **env}, workers=3) as base:

                def flood(clients: int, base: str = base) -> Stats:
                    run = Flood(cells, cells_file.name, clients, next(phase), filed[0])
                    path, seconds = "/api/flags/", args.duration
                    stats = load(base, path, seconds, connections=clients, expected=201, flood=run)
                    filed[0] += round(stats.rps * seconds) + clients  # (and any cut short)
                    return stats

                flood(2)  # warm-up: every worker, its connection and statements
                runs = [(flood(1), flood(CLIENTS)) for _ in range(args.rounds)]
                rows.append(flag_row(broker, *map(list, zip(*runs, strict=True))))
    say("## Flag submit (POST /api/flags/) on PostgreSQL\n")
    say(f"gunicorn 3 sync workers, DEBUG=0, {'Redis' if redis else 'local memory'} as the cache;")
    say(f"{client_text(args)}; the {size(big)} arena's cells; {args.rounds} round(s) of 1 client")
    say(f"then {CLIENTS}, the median shown. Targets: p50 ≤ 10 ms; ≥ 200 answers/s, p99 ≤ 150 ms.\n")
    header = ["broker", "1 client p50 ms", f"{CLIENTS} clients: answers/s", "p99 ms", "not 201"]
    say(table([*header, ""], rows) + "\n")


def size(arena) -> str:  # type: ignore[no-untyped-def]
    return f"{arena.products.count()} × {arena.stories.count()}"


def database() -> str:
    return "PostgreSQL" if os.environ["DATABASE_URL"].startswith("postgres") else "SQLite"


def client_text(args: argparse.Namespace) -> str:
    tool = "wrk -t1" if WRK else "a Python client (wrk is not installed: make bench-deps)"
    return f"{tool}, {args.duration} s per run"


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(PARTS), help=f"of {','.join(PARTS)}")
    parser.add_argument("--duration", type=int, default=3, help="seconds per measured run")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per figure")
    args = parser.parse_args()
    args.parts = args.only.split(",")
    if set(args.parts) - set(PARTS):
        parser.error(f"--only: choose from {','.join(PARTS)}")
    return args


def main() -> None:
    args = arguments()
    on_postgres, flags = os.environ.get("DATABASE_URL", "").startswith("postgres"), []
    if "flags" in args.parts and not on_postgres:
        # the flag part needs PostgreSQL: this script again, under with-postgres.sh, at the end
        args.parts.remove("flags")
        flags = [sys.executable, __file__, "--only", "flags", "--duration", str(args.duration)]
        flags += ["--rounds", str(args.rounds)]
    if not os.environ.get("ARENA_BENCH_CHILD"):
        git = ["git", "log", "-1", "--format=%h %s"]
        commit = subprocess.run(git, cwd=ROOT, capture_output=True, text=True).stdout.strip()
        loadavg = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        say(f"# make bench\n\n{time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores")
        say(f"(load average {loadavg} at start), commit {commit[:70]}\n")
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        os.environ.setdefault("DATABASE_URL", f"sqlite:///{tmp}/bench.sqlite3")
        if args.parts:
            measure(args)
    if flags:
        env = {**os.environ, "ARENA_BENCH_CHILD": "1"}
        env.pop("DATABASE_URL", None)
        subprocess.run(["bash", "scripts/with-postgres.sh", *flags], cwd=ROOT, env=env, check=True)


def measure(args: argparse.Namespace) -> None:
    os.environ.update({**ENV, "PAGE_CACHE": "0", "DJANGO_SETTINGS_MODULE": "config.settings"})
    sys.path.insert(0, str(ROOT))
    # Django reads the settings above as it starts, and models need the app registry it fills.
    import django

    django.setup()
    logging.disable(logging.WARNING)  # the access log of every in-process request
    from django.core.management import call_command

    from arena.models import Arena

    quiet = {"stdout": io.StringIO(), "stderr": io.StringIO()}
    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)  # DEBUG=0 reads the manifest
    call_command("load_bundled_arena", **quiet)
    call_command("generate_arena", slug=BIG, products=30, stories=300, **quiet)
    arenas = [Arena.objects.get(slug=SEED), Arena.objects.get(slug=BIG)]
    if "pages" in args.parts:
        run_pages(arenas, args)
    if "queries" in args.parts:
        run_queries(arenas)
    if "recompute" in args.parts:
        run_recompute(arenas[1])
    if "flags" in args.parts:
        run_flags(arenas[1], args)


if __name__ == "__main__":
    main()
