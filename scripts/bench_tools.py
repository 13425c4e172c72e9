"""The bench's tools, Django-free: load and latency measurements over HTTP (wrk, sequential
requests), the servers it starts (gunicorn, redis-server) and the markdown it prints."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
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
# Requests say they came through the TLS proxy (X-Forwarded-Proto: https, believed from loopback as
# one trusted proxy: TRUSTED_PROXIES=1), so the HTTPS redirect is not taken; the API throttle and the pages' miss limit (PAGE_MISS_RATE, which
# counts every uncached render per client) are lifted so that wrk measures pages, not 429s.
SERVER_ENV = {
    "DEBUG": "0",
    "SECRET_KEY": "bench-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
    "ALLOWED_HOSTS": "127.0.0.1,localhost,testserver",
    "TRUSTED_PROXIES": "1",
    "API_ANON_RATE": "100000000/minute",
    "API_USER_RATE": "100000000/minute",
    "PAGE_MISS_RATE": "100000000/minute",
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


def median_round(rounds: Sequence[tuple[Stats, Measured]]) -> tuple[Stats, Measured]:
    """Of rounds of (/healthz, a page) measured one after the other, the round whose ratio of
    throughputs (/healthz's over the page's) is the median: the machine's load, which drifts from
    one second to the next, falls on both runs of a round alike, and an odd round is outvoted."""
    if not rounds:
        raise ValueError("no round measured")

    def ratio_of(round_: tuple[Stats, Measured]) -> float:
        reference, page = round_
        return reference.rps / page.stats.rps if page.stats.rps else float("inf")

    return sorted(rounds, key=ratio_of)[len(rounds) // 2]


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
