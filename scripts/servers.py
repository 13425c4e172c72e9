"""The servers the scripts start for a run (gunicorn, redis-server) and a plain HTTP request."""

from __future__ import annotations

import contextlib
import http.client
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def fetch(base: str, path: str, headers: dict[str, str], method: str = "GET", body=None):  # type: ignore[no-untyped-def]
    """One request on a new connection: (status, headers by lower-case name, body)."""
    port = int(base.rsplit(":", 1)[1])
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def gunicorn(env: dict[str, str], workers: int = 1) -> Iterator[str]:
    """The site under gunicorn on a free loopback port; yields its base URL. Prints the first
    traceback it logged, if any."""
    port = free_port()
    log = tempfile.NamedTemporaryFile(prefix="arena-bench-", suffix=".log")
    command = [sys.executable, "-m", "gunicorn", "arena.wsgi:application", "--config"]
    command += ["gunicorn.conf.py", "--bind", f"127.0.0.1:{port}", "--workers", str(workers)]
    environ = {**os.environ, **env}
    process = subprocess.Popen(
        command, cwd=ROOT, env=environ, stdout=log, stderr=log, start_new_session=True
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while process.poll() is None and time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                if fetch(base, "/healthz", {})[0] == 200:
                    break
            time.sleep(0.1)
        else:
            raise RuntimeError(f"gunicorn did not start:\n{Path(log.name).read_text()[-3000:]}")
        time.sleep(2 if workers > 1 else 0)  # the other workers may still be loading the site
        yield base
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        process.wait(30)
        text = Path(log.name).read_text(errors="replace")
        if "Traceback" in text:
            print(f"gunicorn logged an error:\n```\n{text[text.index('Traceback') :][:3000]}```")
        log.close()


@contextlib.contextmanager
def redis_server(*options: str) -> Iterator[str | None]:
    """A throwaway redis-server (no persistence, ``options`` added): its URL; None if not installed."""
    if not shutil.which("redis-server"):
        yield None
        return
    port = free_port()
    command = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
    command += ["--appendonly", "no", *options]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    try:
        for _ in range(100):
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            time.sleep(0.1)
        yield f"redis://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(10)
