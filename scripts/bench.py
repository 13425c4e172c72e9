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
import contextlib
import http.client
import io
import json
import logging
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
LUA = ROOT / "scripts" / "bench.lua"
GUNICORN_CONF = ROOT / "gunicorn.conf.py"
PARTS = ("pages", "queries", "recompute", "queue", "flags")
SEED_SLUG = "durable-execution-engines"
BIG_SLUG = "big"
BIG_PRODUCTS, BIG_STORIES = 30, 300
QUEUE_ITEMS = 50
EXPLANATION = "Benchmark flag: the evidence for this verdict looks out of date to me."
# Every gunicorn of the bench (and the in-process part, so both render alike): production settings.
# Requests say they came through the TLS proxy (X-Forwarded-Proto: https, which DEBUG=0 trusts), so
# the HTTPS redirect is not taken; the API throttle is lifted so that wrk measures pages, not 429s.
SERVER_ENV = {
    "DEBUG": "0",
    "SECRET_KEY": "bench-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
    "ALLOWED_HOSTS": "127.0.0.1,localhost,testserver",
    "API_ANON_RATE": "100000000/minute",
    "API_USER_RATE": "100000000/minute",
    "LOG_LEVEL": "ERROR",
}
FLOOD_ENV = {"FLAG_RATE": "1000000/hour", "TRUSTED_PROXIES": "1"}
PROXY_HEADERS = {"X-Forwarded-Proto": "https"}
HX = {"HX-Request": "true"}


# --------------------------------------------------------------------------- measurements


@dataclass
class Stats:
    """One measured URL: completed requests over wall time, latency percentiles, statuses."""

    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    statuses: dict[str, int] = field(default_factory=dict)
    socket_errors: int = 0
    tool: str = "wrk"

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def count_not(self, prefix: str) -> int:
        """Responses whose status does not start with ``prefix`` ("2": non-2xx), socket errors
        included."""
        bad = sum(n for status, n in self.statuses.items() if not status.startswith(prefix))
        return bad + self.socket_errors

    def status_text(self) -> str:
        return ", ".join(f"{s}: {n}" for s, n in sorted(self.statuses.items())) or "none"


def parse_wrk(output: str) -> Stats:
    """The ``BENCH {…}`` line scripts/bench.lua prints at the end of a wrk run."""
    for line in output.splitlines():
        if line.startswith("BENCH "):
            data = json.loads(line[len("BENCH ") :])
            return Stats(
                requests=data["requests"],
                seconds=data["seconds"],
                p50_ms=data["p50_us"] / 1000,
                p99_ms=data["p99_us"] / 1000,
                statuses={str(k): v for k, v in data["statuses"].items()},
                socket_errors=data["socket_errors"],
            )
    raise RuntimeError(f"wrk printed no result line:\n{output[-2000:]}")


def percentile(values: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile (p99 of fewer than 100 samples is the largest)."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * pct // 100))  # ceil
    return ordered[int(rank) - 1]


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes
    seconds: float


def fetch(
    base: str,
    path: str,
    headers: Mapping[str, str] | None = None,
    *,
    method: str = "GET",
    body: bytes | None = None,
    timeout: float = 300,
) -> Reply:
    """One request on a fresh connection (gunicorn's sync worker closes each one anyway)."""
    url = urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=timeout)
    start = time.perf_counter()
    try:
        conn.request(method, path, body=body, headers={**PROXY_HEADERS, **(headers or {})})
        response = conn.getresponse()
        data = response.read()
        seconds = time.perf_counter() - start
        return Reply(
            response.status, {k.lower(): v for k, v in response.getheaders()}, data, seconds
        )
    finally:
        conn.close()


def sequential(base: str, path: str, headers: Mapping[str, str], runs: int) -> Stats:
    """``runs`` requests one after the other (for pages too slow for a short wrk run)."""
    times, statuses = [], {}
    for _ in range(runs):
        reply = fetch(base, path, headers)
        times.append(reply.seconds)
        statuses[str(reply.status)] = statuses.get(str(reply.status), 0) + 1
    return Stats(
        requests=runs,
        seconds=sum(times),
        p50_ms=statistics.median(times) * 1000,
        p99_ms=percentile(times, 99) * 1000,
        statuses=statuses,
        tool="sequential",
    )


def wrk_command(
    base: str,
    path: str,
    *,
    headers: Mapping[str, str],
    duration: float,
    connections: int,
    script_args: Sequence[str] = (),
) -> list[str]:
    # wrk takes whole seconds
    command = [
        "wrk",
        "-t1",
        f"-c{connections}",
        f"-d{max(1, round(duration))}s",
        "--timeout",
        "60s",
    ]
    command += ["-s", str(LUA)]
    for name, value in {**PROXY_HEADERS, **headers}.items():
        command += ["-H", f"{name}: {value}"]
    command.append(base + path)
    if script_args:
        command += ["--", *script_args]
    return command


def wrk_start(base: str, path: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen(
        wrk_command(base, path, **kwargs),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def wrk_finish(process: subprocess.Popen) -> Stats:
    output, _ = process.communicate()
    return parse_wrk(output)


def wrk(base: str, path: str, **kwargs) -> Stats:
    return wrk_finish(wrk_start(base, path, **kwargs))


@dataclass
class Measured:
    """A URL's figures and what one plain request to it answered (status, ETag, size)."""

    stats: Stats
    first: Reply


def measure(
    base: str, path: str, headers: Mapping[str, str], *, duration: float, connections: int
) -> Measured:
    """One warm-up request, then wrk for ``duration`` s; a page slower than a quarter of that (on
    a second request: the first may have filled a cache) is timed with a few sequential requests
    instead (wrk would complete too few)."""
    first = fetch(base, path, headers)
    if first.seconds > duration / 4:
        seconds = fetch(base, path, headers).seconds
        if seconds > duration / 4:
            runs = max(3, min(10, int(duration / seconds)))
            return Measured(sequential(base, path, headers, runs), first)
    stats = wrk(base, path, headers=headers, duration=duration, connections=connections)
    return Measured(stats, first)


# --------------------------------------------------------------------------- servers


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def stop_process_group(process: subprocess.Popen) -> None:
    """SIGTERM the process group this bench started, SIGKILL it if it lingers."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(5)


@contextlib.contextmanager
def gunicorn(
    env: Mapping[str, str], *, workers: int = 1, threads: int = 1, worker_class: str = "sync"
) -> Iterator[str]:
    """A gunicorn of the site with the repo's gunicorn.conf.py and the given worker settings, on a
    free loopback port; yields its base URL once every worker has had time to load the site."""
    port = free_port()
    log = tempfile.NamedTemporaryFile(prefix="arena-bench-gunicorn-", suffix=".log", delete=False)
    command = [sys.executable, "-m", "gunicorn", "arena.wsgi:application"]
    command += ["--config", str(GUNICORN_CONF), "--bind", f"127.0.0.1:{port}"]
    command += ["--workers", str(workers), "--threads", str(threads)]
    command += ["--worker-class", worker_class, "--log-level", "warning"]
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env={**os.environ, **env},
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"gunicorn exited: {Path(log.name).read_text()[-3000:]}")
            with contextlib.suppress(OSError):
                if fetch(base, "/healthz", timeout=5).status == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError(f"gunicorn did not start: {Path(log.name).read_text()[-3000:]}")
            time.sleep(0.1)
        if workers > 1:
            time.sleep(3)  # the other workers are still importing the site
        yield base
    finally:
        stop_process_group(process)
        log.close()
        label = f"{workers} × {threads} ({worker_class}), PAGE_CACHE={env.get('PAGE_CACHE')}"
        first_error(Path(log.name).read_text(errors="replace"), label)
        os.unlink(log.name)


SERVER_ERRORS: list[str] = []  # the first error each gunicorn logged, printed at the end


def first_error(log: str, label: str) -> None:
    """Keep the first traceback (or error line) of a gunicorn's log, if any."""
    lines = log.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Traceback") or "[ERROR]" in line or "Internal Server Error" in line:
            SERVER_ERRORS.append(f"gunicorn {label}:\n" + "\n".join(lines[i : i + 40]))
            return


@contextlib.contextmanager
def redis_server() -> Iterator[str | None]:
    """A throwaway redis-server (no persistence) when one is installed; yields its URL or None."""
    executable = shutil.which("redis-server")
    if executable is None:
        yield None
        return
    port = free_port()
    folder = tempfile.mkdtemp(prefix="arena-bench-redis-")
    command = [executable, "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
    command += ["--appendonly", "no", "--dir", folder, "--loglevel", "warning"]
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 15
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        stop_process_group(process)
        shutil.rmtree(folder, ignore_errors=True)


# --------------------------------------------------------------------------- output


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A markdown table: the first column left-aligned, the others right-aligned."""
    lines = ["| " + " | ".join(headers) + " |"]
    lines.append("|" + "|".join(["---"] + ["---:"] * (len(headers) - 1)) + "|")
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def ms(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.0f}" if value >= 100 else f"{value:.1f}" if value >= 10 else f"{value:.2f}"


def ratio(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.0f}×" if value >= 100 else f"{value:.1f}×" if value >= 10 else f"{value:.2f}×"


def rate(value: float | None) -> str:
    return "—" if value is None else f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def say(text: str = "") -> None:
    print(text, flush=True)


# --------------------------------------------------------------------------- the bench


@dataclass(frozen=True)
class Page:
    name: str
    path: str
    headers: Mapping[str, str] = field(default_factory=dict)
    http: bool = True  # measured over HTTP (every page gets its query count)
    per_arena: bool = True  # False: the same URL for both arenas (measured once)


def arena_pages(arena) -> list[Page]:
    """Every public page and htmx fragment of ``arena`` (the models are imported by the caller)."""
    from arena.text import arena_slugify  # after django.setup(), as the caller's imports

    products = list(arena.products.order_by("position"))
    a, b = products[0], products[-1]
    story = arena.stories.order_by("position").first()
    cell = story.cells.filter(product=a).first()
    persona = story.persona.slug
    base = f"/arenas/{arena.slug}/"
    first, *_, last = [arena_slugify(c.name) for c in arena.categories.order_by("position")]
    weights = f"weights={first}:3,{last}:0"
    four = ",".join(p.slug for p in products[:4])
    return [
        Page("home", "/", per_arena=False),
        Page("arena", base),
        Page("arena, filtered (persona + text)", f"{base}?persona={persona}&q=a"),
        Page(
            "⤷ htmx leaderboard (rank by verified)",
            f"{base}?rank=verified",
            {**HX, "HX-Target": "leaderboard"},
        ),
        Page(
            "⤷ htmx matrix (persona filter)",
            f"{base}?persona={persona}",
            {**HX, "HX-Target": "matrix"},
        ),
        Page(
            "⤷ htmx matrix (verdict + text)",
            f"{base}?verdict=disputed&q=e",
            {**HX, "HX-Target": "matrix"},
            http=False,
        ),
        Page("arena, your weights", f"{base}?{weights}"),
        Page(
            "⤷ htmx leaderboard (your weights)",
            f"{base}?{weights}",
            {**HX, "HX-Target": "leaderboard"},
        ),
        Page("compare 4 products", f"{base}compare/?products={four}"),
        Page("head-to-head", f"{base}vs/{a.slug}-vs-{b.slug}/"),
        Page(
            "⤷ htmx head-to-head (pair picker)",
            f"{base}vs/{a.slug}-vs-{b.slug}/?a={b.slug}&b={products[1].slug}",
            HX,
            http=False,
        ),
        Page("product", f"{base}products/{a.slug}/"),
        Page("story", f"{base}stories/{story.pk}/"),
        Page("cell proof", f"/cells/{cell.pk}/"),
        Page("methodology", "/methodology/", per_arena=False),
        Page("404 (unknown product)", f"{base}products/no-such-product/", http=False),
        Page("flag form", f"/cells/{cell.pk}/flag/", http=False),
        Page("⤷ htmx flag form", f"/cells/{cell.pk}/flag/", HX, http=False),
        Page("recent changes", "/changes/", http=False, per_arena=False),
        Page("Atom feed", "/changes/feed/", http=False, per_arena=False),
        Page("API arenas", "/api/arenas/", http=False, per_arena=False),
        Page("API arena detail", f"/api/arenas/{arena.slug}/"),
        Page("API matrix", f"/api/arenas/{arena.slug}/matrix/"),
        Page("API compare", f"/api/arenas/{arena.slug}/compare/{a.slug}/{b.slug}/"),
        Page("API arena detail (your weights)", f"/api/arenas/{arena.slug}/?{weights}"),
        Page("API compare 4 products", f"/api/arenas/{arena.slug}/compare/?products={four}"),
        Page("export JSON (arena file)", f"{base}export.json"),
        Page("export CSV", f"{base}export.csv"),
        Page("arena markdown", f"/arenas/{arena.slug}.md"),
        Page("head-to-head markdown", f"{base}vs/{a.slug}-vs-{b.slug}.md"),
        Page("cell markdown", f"/cells/{cell.pk}.md"),
        Page("llms.txt", "/llms.txt", per_arena=False),
        Page("arena changes feed (Atom)", f"{base}changes/feed/"),
        Page("product changes feed (Atom)", f"{base}products/{a.slug}/changes/feed/"),
        Page("product badge (SVG)", f"{base}products/{a.slug}/badge.svg"),
        Page("sitemap.xml", "/sitemap.xml", per_arena=False),
        Page("robots.txt", "/robots.txt", http=False, per_arena=False),
    ]


def database_label() -> str:
    url = os.environ.get("DATABASE_URL", "")
    return "PostgreSQL" if url.startswith(("postgres://", "postgresql://")) else "SQLite"


def setting_text(names: Sequence[str]) -> str:
    return ", ".join(f"{name}={os.environ[name]}" for name in names if os.environ.get(name))


def run_pages(arenas, args) -> None:
    """Pages over HTTP: a warm gunicorn (PAGE_CACHE=1) and a cold one (PAGE_CACHE=0)."""
    wrk_text = f"wrk -t1 -c{args.connections} -d{args.duration:g}s"
    say("## Pages over HTTP\n")
    say(
        f"gunicorn, 1 sync worker (gunicorn.conf.py), DEBUG=0, {database_label()}, "
        f"{setting_text(['CONN_MAX_AGE', 'REDIS_URL']) or 'page cache in local memory'}; "
        f"{wrk_text} on loopback, no Accept-Encoding (one warm-up request per URL; pages slower "
        f"than {args.duration / 4:g} s: {args.duration:g} s of sequential requests). Warm: "
        "PAGE_CACHE=1; cold: PAGE_CACHE=0 (a second gunicorn); 304: wrk with If-None-Match: "
        "<the page's ETag> on the warm one. Ratios against /healthz in the same gunicorn, "
        f"measured for {args.pair_duration:g} s just before each row (the machine's load "
        "drifts): throughput (warm, 304), p50 latency (cold). API_ANON_RATE lifted.\n"
    )
    healthz = Page("healthz", "/healthz")
    rows: list[tuple[str, str, Page]] = [("/healthz (trivial view)", "—", healthz)]
    for arena in arenas:
        for page in arena_pages(arena):
            if page.http and (page.per_arena or arena is arenas[0]):
                rows.append((page.name, arena_size(arena) if page.per_arena else "—", page))

    def run(base: str, page: Page, extra: Mapping[str, str] | None = None) -> Measured:
        headers = {**page.headers, **(extra or {})}
        return measure(
            base, page.path, headers, duration=args.duration, connections=args.connections
        )

    def reference(base: str) -> Stats:
        return wrk(
            base, "/healthz", headers={}, duration=args.pair_duration, connections=args.connections
        )

    # per row: (reference, measured) for warm, cold and 304
    warm: list[tuple[Stats, Measured]] = []
    cold: list[tuple[Stats, Measured]] = []
    revalidated: list[Stats | None] = []
    with gunicorn({**SERVER_ENV, "PAGE_CACHE": "1"}) as base:
        for _name, _size, page in rows:
            ref = reference(base)
            warm.append((ref, run(base, page)))
            etag = warm[-1][1].first.headers.get("etag")
            revalidated.append(
                run(base, page, {"If-None-Match": etag}).stats
                if etag and page is not healthz
                else None
            )
        big_path = f"/arenas/{BIG_SLUG}/"
        gzipped = fetch(base, big_path, {"Accept-Encoding": "gzip"})
        plain = fetch(base, big_path)
    with gunicorn({**SERVER_ENV, "PAGE_CACHE": "0"}) as base:
        for _name, _size, page in rows:
            ref = reference(base)
            cold.append((ref, run(base, page)))

    table = []
    for (name, size, _page), (wref, w), (cref, c), r in zip(
        rows, warm, cold, revalidated, strict=True
    ):
        note = [f"{label} {m.first.status}" for label, m in (("warm", w), ("cold", c))]
        note = [n for n in note if not n.endswith(" 200")]
        if r is not None and r.count_not("304"):
            note.append(f"304 run: {r.status_text()}")
        if w.stats.tool != "wrk" or c.stats.tool != "wrk":
            note.append("sequential")
        table.append(
            [
                name + (f" ({'; '.join(note)})" if note else ""),
                size,
                rate(w.stats.rps),
                ratio(w.stats.rps / wref.rps),
                f"{ms(w.stats.p50_ms)} / {ms(w.stats.p99_ms)}",
                rate(c.stats.rps),
                f"{ms(c.stats.p50_ms)} / {ms(c.stats.p99_ms)}",
                ratio(c.stats.p50_ms / cref.p50_ms),
                rate(r.rps) if r else "—",
                ratio(r.rps / wref.rps) if r else "—",
                f"{len(w.first.body) / 1024:.0f}",
            ]
        )
    say(
        markdown_table(
            [
                "page",
                "arena",
                "warm req/s",
                "warm ×healthz",
                "warm p50 / p99 ms",
                "cold req/s",
                "cold p50 / p99 ms",
                "cold latency ×healthz",
                "304 req/s",
                "304 ×healthz",
                "KB",
            ],
            table,
        )
    )
    names = [(name, size) for name, size, _page in rows]
    seed_cold = cold[names.index(("arena", arena_size(arenas[0])))][1].stats.p50_ms
    big_cold = cold[names.index(("arena", arena_size(arenas[1])))][1].stats.p50_ms
    encoding = gzipped.headers.get("content-encoding", "identity")
    say(
        f"\n30×300 arena page: {len(gzipped.body) / 1024:.1f} KB with Accept-Encoding: gzip "
        f"(Content-Encoding: {encoding}; {len(plain.body) / 1024:.0f} KB plain); cold p50 "
        f"30×300 / 6×53 = {ratio(big_cold / seed_cold)} ({ms(big_cold)} ms / {ms(seed_cold)} ms).\n"
    )


def arena_size(arena) -> str:
    return f"{arena.products.count()}×{arena.stories.count()}"


def run_queries(arenas) -> None:
    """Queries and size of every page and fragment, rendered in this process (PAGE_CACHE=0)."""
    # Django is set up by the caller; the test client and query capture need its app registry.
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    say("## Queries per page\n")
    say(
        f"Rendered in-process through django.test.Client, {database_label()}, DEBUG=0, "
        "PAGE_CACHE=0 (every request renders); the second request of each page is counted.\n"
    )
    client = Client()
    results: dict[str, dict[str, tuple[int, int, int]]] = {}
    order: list[str] = []
    for arena in arenas:
        for page in arena_pages(arena):
            if page.name not in order:
                order.append(page.name)
            client.get(page.path, headers=dict(page.headers), secure=True)  # warm-up
            connection.queries_log.clear()  # a full log (maxlen) would hide new queries
            with CaptureQueriesContext(connection) as queries:
                response = client.get(page.path, headers=dict(page.headers), secure=True)
                # a streamed export reads as it is sent
                body = (
                    b"".join(response.streaming_content) if response.streaming else response.content
                )
            results.setdefault(page.name, {})[arena.slug] = (
                len(queries),
                response.status_code,
                len(body),
            )
    seed, big = (a.slug for a in arenas)
    rows = []
    for name in order:
        qs, st, size = results[name][seed]
        qb, sb, sizeb = results[name][big]
        status = "" if st == sb and st in (200, 301, 302) else f" ({st}/{sb})"
        rows.append([f"{name}{status}", qs, qb, f"{size / 1024:.0f}", f"{sizeb / 1024:.0f}"])
    say(
        markdown_table(
            ["page", "queries 6×53", "queries 30×300", "KB 6×53", "KB 30×300"],
            rows,
        )
    )
    say()


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


def pending_flags(big, count: int) -> None:
    """``count`` pending review items on ``count`` cells of ``big``, through flag_submit."""
    from flags.inputs import FlagInput
    from flags.services import flag_submit
    from stories.models import Cell

    cells = Cell.objects.filter(story__arena=big).order_by("story__position", "product__position")
    for i, cell in enumerate(cells[:count]):
        flag_submit(
            cell=cell,
            data=FlagInput(reason="other", explanation=EXPLANATION),
            client=f"bench-queue-client-{i}",
        )


def admin_session() -> str:
    """A superuser's session id (a session row in the database, as a login makes)."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    user = get_user_model().objects.create_superuser(
        "bench-admin", "bench@example.com", "bench-admin-password-not-used"
    )
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def run_queue(big, args) -> None:
    say("## Moderators' queue\n")
    pending_flags(big, QUEUE_ITEMS)
    session = admin_session()
    headers = {"Cookie": f"sessionid={session}"}
    say(
        f"gunicorn, 1 sync worker, DEBUG=0, {database_label()}; logged in as a superuser; "
        f"{QUEUE_ITEMS} pending review items on the {arena_size(big)} arena (flag_submit); "
        f"median of {args.queue_runs} sequential requests after one warm-up.\n"
    )
    rows = []
    with gunicorn({**SERVER_ENV, "PAGE_CACHE": "1"}) as base:
        results = {}
        for name, path in (
            ("admin index", "/admin/"),
            ("queue (ReviewItem changelist)", "/admin/flags/reviewitem/"),
        ):
            first = fetch(base, path, headers)
            results[name] = (first, sequential(base, path, headers, args.queue_runs))
    index_ms = results["admin index"][1].p50_ms
    for name, (first, stats) in results.items():
        status = "" if first.status == 200 else f" ({first.status})"
        rows.append(
            [name + status, ms(stats.p50_ms), ms(stats.p99_ms), ratio(stats.p50_ms / index_ms)]
        )
    say(markdown_table(["page", "median ms", "max ms", "× admin index"], rows))
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
