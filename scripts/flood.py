#!/usr/bin/env python
"""How much a flood of made-up addresses costs the page cache: Redis's keys and bytes, a gunicorn
worker's resident memory and the cached arena page's median latency, before and after a few hundred
requests with junk query parameters and header variants (spread over many client addresses, so the
per-client miss limit does not hide how many entries the cache would make).

Standalone, like scripts/bench.py (whose helpers it uses): a temporary SQLite database with the
bundled seed arena, a throwaway redis-server as the cache, one gunicorn worker with ``DEBUG=0``.
Run from the project root:

    .venv/bin/python scripts/flood.py                 # 300 junk requests
    .venv/bin/python scripts/flood.py --requests 1000
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import statistics
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

import bench  # noqa: E402 - the bench's helpers, next to this file

ARENA = f"/arenas/{bench.SEED_SLUG}/"


def redis_figures(url: str) -> tuple[int, int, int]:
    """(DBSIZE, rendered pages among them, used_memory in bytes) of the Redis at ``url``."""
    port = url.rsplit(":", 1)[1].split("/")[0]
    cli = ["redis-cli", "-p", port]
    keys = int(subprocess.run([*cli, "DBSIZE"], capture_output=True, text=True).stdout.strip())
    scan = subprocess.run([*cli, "--scan", "--pattern", "*:page:*"], capture_output=True, text=True)
    pages = sum(1 for key in scan.stdout.split() if not key.endswith(":lock"))
    info = subprocess.run([*cli, "INFO", "memory"], capture_output=True, text=True).stdout
    used = next(
        int(line.split(":")[1]) for line in info.splitlines() if line.startswith("used_memory:")
    )
    return keys, pages, used


def worker_rss(master: int) -> int:
    """Resident bytes of the (one) worker of the gunicorn master ``master``."""
    children = subprocess.run(
        ["ps", "-o", "pid=", "--ppid", str(master)], capture_output=True, text=True
    ).stdout.split()
    status = Path(f"/proc/{children[0]}/status").read_text()
    kb = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
    return kb * 1024


def median_ms(base: str, path: str, runs: int) -> float:
    bench.fetch(base, path)  # (cached now)
    times = [bench.fetch(base, path).seconds for _ in range(runs)]
    return statistics.median(times) * 1000


def junk(rng: random.Random) -> tuple[str, dict[str, str]]:
    """A made-up address of the arena page and made-up headers, as a flood would send them."""
    word = lambda n=8: "".join(rng.choices(string.ascii_lowercase, k=n))  # noqa: E731
    params = [(word(), word()) for _ in range(rng.randint(1, 4))]
    if rng.random() < 0.5:  # a real parameter among them, spelled or ordered another way
        params.append(rng.choice([("verdict", "full"), ("diff", "1"), ("stale", "on")]))
        rng.shuffle(params)
    query = "&".join(f"{k}={v}" for k, v in params)
    headers = {
        "X-Forwarded-For": f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
    }
    roll = rng.random()
    if roll < 0.3:
        headers.update({"HX-Request": "true", "HX-Target": word()})
    elif roll < 0.4:
        headers.update({"HX-Request": rng.choice(["true", "TRUE", "1", word()])})
    path = ARENA
    if rng.random() < 0.2:
        path = f"/api/arenas/{bench.SEED_SLUG}/"
        headers["Accept"] = rng.choice(["application/json", "*/*", f"application/{word()}", word()])
    return f"{path}?{query}", headers


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--runs", type=int, default=60, help="requests for each median")
    args = parser.parse_args(argv)
    tmp = tempfile.TemporaryDirectory(prefix="arena-flood-")
    env = {
        **bench.SERVER_ENV,
        "DATABASE_URL": f"sqlite:///{tmp.name}/flood.sqlite3",
        "TRUSTED_PROXIES": "1",  # each junk request from its own client address
    }
    os.environ.update(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    quiet = {"stdout": io.StringIO(), "stderr": io.StringIO()}
    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    call_command("load_bundled_arena", **quiet)
    with bench.redis_server() as redis_url:
        if redis_url is None:
            sys.exit("redis-server is not installed")
        server_env = {**env, "REDIS_URL": redis_url, "WEB_CONCURRENCY": "1"}
        port = bench.free_port()
        command = [sys.executable, "-m", "gunicorn", "arena.wsgi:application"]
        command += ["--config", str(bench.GUNICORN_CONF), "--bind", f"127.0.0.1:{port}"]
        command += ["--workers", "1", "--log-level", "warning"]
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env={**os.environ, **server_env},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 90
            while True:
                with contextlib.suppress(OSError):
                    if bench.fetch(base, "/healthz", timeout=5).status == 200:
                        break
                if time.monotonic() > deadline:
                    sys.exit("gunicorn did not start")
                time.sleep(0.1)
            before_ms = median_ms(base, ARENA, args.runs)
            keys0, pages0, used0 = redis_figures(redis_url)
            rss0 = worker_rss(process.pid)
            rng = random.Random(22)
            statuses: dict[int, int] = {}
            started = time.perf_counter()
            for _ in range(args.requests):
                path, headers = junk(rng)
                status = bench.fetch(base, path, headers).status
                statuses[status] = statuses.get(status, 0) + 1
            flood_s = time.perf_counter() - started
            keys1, pages1, used1 = redis_figures(redis_url)
            rss1 = worker_rss(process.pid)
            after_ms = median_ms(base, ARENA, args.runs)
        finally:
            bench.stop_process_group(process)
    mb = lambda n: f"{n / 1e6:.1f} MB"  # noqa: E731
    print(
        f"{args.requests} junk requests in {flood_s:.1f} s, statuses {dict(sorted(statuses.items()))}"
    )
    print(
        bench.markdown_table(
            ["", "before", "after"],
            [
                ["Redis keys (DBSIZE)", str(keys0), str(keys1)],
                ["rendered pages among them", str(pages0), str(pages1)],
                ["Redis used_memory", mb(used0), mb(used1)],
                ["worker resident memory", mb(rss0), mb(rss1)],
                ["cached arena page, median", f"{before_ms:.1f} ms", f"{after_ms:.1f} ms"],
            ],
        )
    )
    tmp.cleanup()


if __name__ == "__main__":
    main()
