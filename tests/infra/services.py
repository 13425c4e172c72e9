"""Start and stop REAL services for tests: redis-server, a Celery worker (+beat), a live Django
server process and a headless Chromium driven by Playwright.

Plain functions and context managers, no pytest dependency::

    from tests.infra.services import redis_server, celery_worker, live_server_process

    with redis_server() as redis:                      # RedisServer: .url .port .stop() .start()
        env = {"CELERY_BROKER_URL": redis.url, "DATABASE_URL": "..."}
        with celery_worker(env) as worker:             # CeleryWorker: .stop() .kill() .start() .log
            with live_server_process(env) as base_url:  # "http://127.0.0.1:PORT"
                ...

    # gunicorn with 3 worker processes × 4 threads; 40 requests released at the same moment
    with live_server_process(env, server="gunicorn", workers=3, threads=4) as base_url:
        results = simultaneous_requests(base_url, [HttpRequest("GET", "/")] * 40)

Every subprocess runs in its own process group (so a Celery worker and its embedded beat die
together), gets SIGTERM if the test process dies (Linux ``PR_SET_PDEATHSIG``), and is also
stopped by an ``atexit`` hook. Startup failures raise :class:`ServiceError` with the tail of the
service's log.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import dataclasses
import http.client
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import urlsplit

import redis
from django.db import connection
from playwright.sync_api import Browser, Playwright, sync_playwright
from redis.backoff import NoBackoff
from redis.retry import Retry

PROJECT_ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_PATH = "/usr/bin/chromium"
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-quic",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
)
LOG_TAIL_CHARS = 4000

__all__ = [
    "CHROMIUM_ARGS",
    "CHROMIUM_PATH",
    "PROJECT_ROOT",
    "CeleryWorker",
    "HttpRequest",
    "HttpResult",
    "LiveServer",
    "RedisServer",
    "ServiceError",
    "celery_worker",
    "chromium_browser",
    "database_url",
    "free_port",
    "live_server_process",
    "loopback_address",
    "loopback_aliases_work",
    "port_is_open",
    "redis_server",
    "simultaneous_requests",
    "wait_for",
]


class ServiceError(RuntimeError):
    """A service failed to start or stop in time; the message carries the tail of its log."""


# --------------------------------------------------------------------------- small utilities


def free_port(host: str = "127.0.0.1") -> int:
    """Return a TCP port on ``host`` that is free right now, below the kernel's ephemeral range: a
    server stopped and started again on it must not find it taken meanwhile by a connection's own
    end (a connection to the stopped server itself may be given it). Drawn with ``secrets``:
    pytest-randomly seeds ``random`` alike in every xdist worker."""
    ranges = Path("/proc/sys/net/ipv4/ip_local_port_range")
    ephemeral = int(ranges.read_text().split()[0]) if ranges.exists() else 32768
    for _ in range(100):
        port = 10_000 + secrets.randbelow(ephemeral - 10_000)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            with contextlib.suppress(OSError):
                sock.bind((host, port))
                return port
    raise ServiceError(f"no free port below {ephemeral} on {host}")


def port_is_open(port: int, host: str = "127.0.0.1", timeout: float = 0.2) -> bool:
    """True when something accepts TCP connections on ``host:port``."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def wait_for(
    predicate: Callable[[], object], timeout: float, interval: float = 0.05, what: str = "condition"
) -> None:
    """Poll ``predicate()`` until it is truthy; raise :class:`TimeoutError` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return
        if time.monotonic() >= deadline:
            raise TimeoutError(f"timed out after {timeout:.1f}s waiting for {what}")
        time.sleep(interval)


def _tail(text: str, limit: int = LOG_TAIL_CHARS) -> str:
    return text if len(text) <= limit else "...\n" + text[-limit:]


def _merged_env(extra: Mapping[str, str | None] | None) -> dict[str, str]:
    """This process's environment plus ``extra`` (a ``None`` value removes the variable)."""
    env = dict(os.environ)
    env.setdefault("PYTHONUNBUFFERED", "1")
    env.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    for key, value in (extra or {}).items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = str(value)
    # Let `import arena` work whatever the cwd of the test process is.
    pythonpath = env.get("PYTHONPATH", "")
    if str(PROJECT_ROOT) not in pythonpath.split(os.pathsep):
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PROJECT_ROOT), pythonpath) if p)
    return env


def _python() -> str:
    """The interpreter of this test run (the project's venv when run as .venv/bin/python)."""
    venv_python = PROJECT_ROOT / ".venv" / "bin" / "python"
    if sys.prefix != sys.base_prefix or not venv_python.exists():
        return sys.executable
    return str(venv_python)


try:  # resolved here, not in the forked child (dlopen/dlsym after fork can deadlock)
    _PRCTL = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None
except (OSError, AttributeError):
    _PRCTL = None


def _set_pdeathsig() -> None:
    """Runs in the child between fork and exec: SIGTERM it when the test process dies."""
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


# --------------------------------------------------------------------------- managed process

_LIVE: set[_ManagedProcess] = set()
_LIVE_LOCK = threading.Lock()


def _stop_everything() -> None:
    with _LIVE_LOCK:
        live = list(_LIVE)
    for proc in live:
        with contextlib.suppress(Exception):
            proc._terminate(timeout=5)


atexit.register(_stop_everything)


class _ManagedProcess:
    """A subprocess in its own process group, with its stdout+stderr appended to a log file."""

    name = "service"

    def __init__(self, env: Mapping[str, str] | None = None, workdir: Path | None = None):
        self.extra_env: dict[str, str] = dict(env or {})
        self.workdir = Path(workdir) if workdir else PROJECT_ROOT
        self.tmpdir = Path(tempfile.mkdtemp(prefix=f"arena-{self.name}-"))
        self.log_path = self.tmpdir / f"{self.name}.log"
        self.process: subprocess.Popen[bytes] | None = None
        self._log_file: BinaryIO | None = None

    # -- to be provided by subclasses
    def command(self) -> list[str]:
        raise NotImplementedError

    def _is_ready(self) -> bool:
        raise NotImplementedError

    # -- public API
    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    @property
    def log(self) -> str:
        """Everything the service printed so far (all runs, each after an ``=== start`` line)."""
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def is_running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def _spawn(self, timeout: float) -> None:
        if self.is_running():
            return
        cmd = self.command()
        if not shutil.which(cmd[0]) and not Path(cmd[0]).exists():
            raise ServiceError(f"{self.name}: executable {cmd[0]!r} not found ({self._hint()})")
        self._log_file = open(self.log_path, "ab", buffering=0)
        self._log_file.write(f"=== start {time.strftime('%H:%M:%S')}: {' '.join(cmd)}\n".encode())
        self.process = subprocess.Popen(
            cmd,
            cwd=self.workdir,
            env=_merged_env(self.extra_env),
            stdin=subprocess.DEVNULL,
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_set_pdeathsig,
        )
        with _LIVE_LOCK:
            _LIVE.add(self)
        deadline = time.monotonic() + timeout
        while True:
            code = self.process.poll()
            if code is not None:
                self._cleanup_after_exit()
                raise ServiceError(
                    f"{self.name} exited with code {code} while starting: {' '.join(cmd)}\n"
                    f"--- log ({self.log_path}) ---\n{_tail(self.log)}"
                )
            try:
                if self._is_ready():
                    return
            except Exception:  # not ready yet
                pass
            if time.monotonic() >= deadline and self.process.poll() is None:
                self._terminate(timeout=5)
                raise ServiceError(
                    f"{self.name} did not become ready within {timeout:.0f}s: {' '.join(cmd)}\n"
                    f"--- log ({self.log_path}) ---\n{_tail(self.log)}"
                )
            time.sleep(0.05)

    def _signal_group(self, sig: int) -> None:
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, sig)

    def _terminate(self, timeout: float = 20) -> int | None:
        """SIGTERM the main process, wait up to ``timeout`` s, then SIGKILL the whole group."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                pass
        self._signal_group(signal.SIGKILL)  # children (Celery's embedded beat) and stragglers
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(5)
        self._cleanup_after_exit()
        return self.process.returncode

    def kill(self) -> int | None:
        """SIGKILL the service and all its children at once (a crash, no shutdown handlers)."""
        if self.process is None:
            return None
        self._signal_group(signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(10)
        self._cleanup_after_exit()
        return self.process.returncode

    def _cleanup_after_exit(self) -> None:
        if self._log_file is not None:
            with contextlib.suppress(Exception):
                self._log_file.close()
            self._log_file = None
        with _LIVE_LOCK:
            _LIVE.discard(self)

    def close(self) -> None:
        """Stop the service (if running) and delete its temp folder (log included)."""
        self._terminate(timeout=10)
        shutil.rmtree(self.tmpdir, ignore_errors=True)

    def _hint(self) -> str:
        return "run `make system-deps install`"

    def __repr__(self) -> str:
        state = "running" if self.is_running() else "stopped"
        return f"<{type(self).__name__} {state} pid={self.pid}>"


# --------------------------------------------------------------------------- Redis


class RedisServer(_ManagedProcess):
    """A throwaway ``redis-server`` on 127.0.0.1 without persistence.

    ``.url`` (``redis://127.0.0.1:PORT/0``), ``.port``, ``.stop()``, ``.start()`` (same port),
    ``.kill()``, ``.ping()``, ``.client()``, ``.log``.
    """

    name = "redis"

    def __init__(self, port: int | None = None, executable: str = "redis-server"):
        super().__init__()
        self.port = port or free_port()
        self.host = "127.0.0.1"
        self.executable = executable

    @property
    def url(self) -> str:
        return f"redis://{self.host}:{self.port}/0"

    def command(self) -> list[str]:
        return [
            self.executable,
            "--port", str(self.port),
            "--bind", self.host,
            "--save", "",
            "--appendonly", "no",
            "--daemonize", "no",
            "--protected-mode", "no",
            "--dir", str(self.tmpdir),
            "--loglevel", "notice",
        ]  # fmt: skip

    def client(self, **kwargs: Any) -> redis.Redis:
        """A ``redis.Redis`` client for this server (short timeouts)."""

        kwargs.setdefault("socket_connect_timeout", 0.5)
        kwargs.setdefault("socket_timeout", 2)
        return redis.Redis(host=self.host, port=self.port, **kwargs)

    def ping(self, timeout: float = 0.5) -> bool:
        """True when the server answers PING, False when it refuses or times out (no retries)."""

        client = self.client(
            socket_connect_timeout=timeout, socket_timeout=timeout, retry=Retry(NoBackoff(), 0)
        )
        try:
            return bool(client.ping())
        except (redis.ConnectionError, redis.TimeoutError, OSError):
            return False
        finally:
            client.close()

    def _is_ready(self) -> bool:
        return self.ping()

    def start(self, timeout: float = 15) -> RedisServer:
        """Start (or restart after :meth:`stop`) on the same port; returns when PING answers."""
        if not self.is_running() and port_is_open(self.port, self.host):
            raise ServiceError(f"redis: port {self.port} is already taken by another process")
        self._spawn(timeout)
        return self

    def stop(self, timeout: float = 10) -> None:
        """Stop the server (SIGTERM, then SIGKILL); connections to its port are refused after."""
        self._terminate(timeout)
        with contextlib.suppress(TimeoutError):
            wait_for(lambda: not port_is_open(self.port, self.host), 5, what="redis port to close")


@contextlib.contextmanager
def redis_server(port: int | None = None, timeout: float = 15) -> Iterator[RedisServer]:
    """Start a real ``redis-server`` on a free loopback port; yield its :class:`RedisServer`."""
    server = RedisServer(port=port)
    try:
        server.start(timeout=timeout)
        yield server
    finally:
        server.close()


# --------------------------------------------------------------------------- Celery


class CeleryWorker(_ManagedProcess):
    """``celery -A arena worker -B --pool=solo`` with the given extra environment.

    ``.start()``, ``.stop()`` (SIGTERM = warm shutdown, then wait), ``.kill()`` (SIGKILL, a crash),
    ``.log``, ``.wait_for_log(text)``, ``.hostname``, ``.schedule_path``.
    """

    name = "celery"

    def __init__(
        self,
        env: Mapping[str, str],
        *,
        app: str = "arena",
        beat: bool = True,
        queues: str | None = None,
        loglevel: str = "INFO",
        extra_args: tuple[str, ...] = (),
    ):
        super().__init__(env)
        if not self.extra_env.get("CELERY_BROKER_URL"):
            raise ValueError("celery_worker(env) needs env['CELERY_BROKER_URL'] (a redis:// URL)")
        self.app = app
        self.beat = beat
        self.queues = queues
        self.loglevel = loglevel
        self.extra_args = tuple(extra_args)
        self.hostname = f"arena-test-{uuid.uuid4().hex[:8]}@%h"
        self.schedule_path = self.tmpdir / "celerybeat-schedule"
        self._log_mark = 0

    def command(self) -> list[str]:
        cmd = [
            _python(), "-m", "celery", "-A", self.app, "worker",
            "--pool=solo", f"--loglevel={self.loglevel}",
            "--hostname", self.hostname,
            "--without-gossip", "--without-mingle",
        ]  # fmt: skip
        if self.beat:
            cmd += ["-B", "--schedule", str(self.schedule_path)]
        if self.queues:
            cmd += ["--queues", self.queues]
        return cmd + list(self.extra_args)

    def _is_ready(self) -> bool:
        # Celery logs "celery@host ready." once it consumes from the broker.
        return " ready." in self.log[self._log_mark :]

    def start(self, timeout: float = 60) -> CeleryWorker:
        """Start the worker; return once it logged that it is ready (raise ServiceError if not)."""
        if not self.is_running():
            self._log_mark = len(self.log)
        self._spawn(timeout)
        return self

    def stop(self, timeout: float = 30) -> int | None:
        """Warm shutdown: SIGTERM, let the running task finish; SIGKILL after ``timeout`` s."""
        return self._terminate(timeout)

    def wait_for_log(self, text: str, timeout: float = 30, *, since_start: bool = True) -> None:
        """Wait until ``text`` appears in the log (of the current run by default)."""

        def seen() -> bool:
            return text in self.log[self._log_mark if since_start else 0 :]

        try:
            wait_for(seen, timeout, interval=0.1, what=f"{text!r} in the celery log")
        except TimeoutError as exc:
            raise ServiceError(f"{exc}\n--- celery log ---\n{_tail(self.log)}") from None


@contextlib.contextmanager
def celery_worker(
    env: Mapping[str, str],
    *,
    app: str = "arena",
    beat: bool = True,
    timeout: float = 60,
    **kwargs: Any,
) -> Iterator[CeleryWorker]:
    """Start a real Celery worker (with embedded beat) in the project root; yield its handle.

    ``env`` is added to this process's environment: pass at least ``CELERY_BROKER_URL`` and
    usually ``DATABASE_URL`` (the worker is a separate process: it sees only committed data).
    """
    worker = CeleryWorker(env, app=app, beat=beat, **kwargs)
    try:
        worker.start(timeout=timeout)
        yield worker
    finally:
        worker.close()


# --------------------------------------------------------------------------- live server


class LiveServer(_ManagedProcess):
    """``manage.py runserver 127.0.0.1:PORT --noreload`` (or gunicorn) in a subprocess.

    ``.url`` (``http://127.0.0.1:PORT``), ``.port``, ``.start()``, ``.stop()``, ``.kill()``,
    ``.log``, ``.worker_pids()``.

    With ``server="gunicorn"``: ``workers`` processes of ``threads`` threads each (gthread; default
    1 × 4). :meth:`start` returns once every worker has loaded the site (a gunicorn hook marks each
    one; ``.worker_pids()`` lists them) and the server answers ``ready_path``. The access log
    lines carry the serving worker's pid (``<pid>`` after the status and size).
    """

    name = "web"
    READY_MARK = "arena-live-server: worker ready"
    ACCESS_LOG_FORMAT = '%(h)s "%(r)s" %(s)s %(b)s %(p)s %(M)sms'

    def __init__(
        self,
        env: Mapping[str, str] | None = None,
        *,
        port: int | None = None,
        server: str = "runserver",
        ready_path: str = "/",
        workers: int = 1,
        threads: int = 4,
        extra_args: tuple[str, ...] = (),
    ):
        super().__init__(env)
        if server not in ("runserver", "gunicorn"):
            raise ValueError("server must be 'runserver' or 'gunicorn'")
        if server == "runserver" and (workers != 1 or threads != 4):
            raise ValueError("workers= and threads= need server='gunicorn'")
        if workers < 1 or threads < 1:
            raise ValueError("workers and threads must be at least 1")
        self.server = server
        self.port = port or free_port()
        self.host = "127.0.0.1"
        self.ready_path = ready_path
        self.workers = workers
        self.threads = threads
        self.extra_args = tuple(extra_args)
        self._log_mark = 0

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def _ready_dir(self) -> Path:
        return self.tmpdir / "workers-ready"

    def _gunicorn_config(self) -> Path:
        """A config file whose hook marks each worker once it loaded the site (and its URLconf):
        a file named after its pid in ``_ready_dir``, and a line in the log."""
        path = self.tmpdir / "gunicorn_conf.py"
        path.write_text(
            "import pathlib\n"
            "\n"
            "\n"
            "def post_worker_init(worker):\n"
            "    try:  # import the views now, not during the first (timed) request\n"
            "        from django.urls import get_resolver\n"
            "\n"
            "        get_resolver().url_patterns\n"
            "    except Exception as exc:\n"
            "        worker.log.warning('URLconf not loaded: %r', exc)\n"
            f"    pathlib.Path({str(self._ready_dir)!r}, str(worker.pid)).touch()\n"
            f"    worker.log.info('{self.READY_MARK} (pid: %s)', worker.pid)\n"
        )
        return path

    def command(self) -> list[str]:
        if self.server == "gunicorn":
            return [
                _python(), "-m", "gunicorn", "arena.wsgi:application",
                "--config", str(self._gunicorn_config()),
                "--bind", f"{self.host}:{self.port}",
                "--workers", str(self.workers), "--threads", str(self.threads),
                "--access-logfile", "-", "--error-logfile", "-",
                "--access-logformat", self.ACCESS_LOG_FORMAT,
                *self.extra_args,
            ]  # fmt: skip
        return [
            _python(), "manage.py", "runserver", f"{self.host}:{self.port}",
            "--noreload", "--skip-checks", *self.extra_args,
        ]  # fmt: skip

    @property
    def current_log(self) -> str:
        """The log of the current (or last) run only."""
        return self.log[self._log_mark :]

    def worker_pids(self) -> list[int]:
        """The pids of the gunicorn workers that loaded the site in the current run (a worker
        that gunicorn replaced stays listed)."""
        if not self._ready_dir.is_dir():
            return []
        return sorted(int(p.name) for p in self._ready_dir.iterdir() if p.name.isdigit())

    def _is_ready(self) -> bool:
        if self.server == "gunicorn" and len(set(self.worker_pids())) < self.workers:
            return False
        if not port_is_open(self.port, self.host):
            return False
        try:
            with urllib.request.urlopen(self.url + self.ready_path, timeout=5):
                return True
        except urllib.error.HTTPError:
            return True  # any HTTP answer (404, 500...) means the server is up
        except (urllib.error.URLError, OSError):
            return False

    def start(self, timeout: float = 60) -> LiveServer:
        if not self.is_running():
            self._log_mark = len(self.log)
            shutil.rmtree(self._ready_dir, ignore_errors=True)
            self._ready_dir.mkdir(parents=True)
        self._spawn(timeout)
        return self

    def stop(self, timeout: float = 10) -> int | None:
        return self._terminate(timeout)


@contextlib.contextmanager
def live_server_process(
    env: Mapping[str, str] | None = None,
    *,
    port: int | None = None,
    server: str = "runserver",
    ready_path: str = "/",
    timeout: float = 60,
    workers: int = 1,
    threads: int = 4,
) -> Iterator[str]:
    """Run the site in a real subprocess; yield its base URL ``http://127.0.0.1:PORT``.

    ``workers``/``threads`` size gunicorn (``server="gunicorn"``). Use :class:`LiveServer`
    directly to get a handle with ``.stop()``/``.log``/``.worker_pids()``.
    """
    web = LiveServer(
        env, port=port, server=server, ready_path=ready_path, workers=workers, threads=threads
    )
    try:
        web.start(timeout=timeout)
        yield web.url
    finally:
        web.close()


# --------------------------------------------------------------------------- simultaneous HTTP


def loopback_address(n: int) -> str:
    """``127.0.0.<n>`` (1 ≤ n ≤ 254): a distinct client address on loopback, to bind a socket to."""
    if not 1 <= n <= 254:
        raise ValueError("n must be between 1 and 254")
    return f"127.0.0.{n}"


def loopback_aliases_work() -> bool:
    """True when a socket bound to 127.0.0.2 can reach 127.0.0.1 (Linux: all of 127/8 is local)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        try:
            with socket.create_connection(
                listener.getsockname(), timeout=1, source_address=(loopback_address(2), 0)
            ) as sock:
                return sock.getsockname()[0] == loopback_address(2)
        except OSError:
            return False


@dataclasses.dataclass(frozen=True)
class HttpRequest:
    """One request of a burst: sent from ``source`` (a local address, "" = the OS picks)."""

    method: str
    path: str
    json_body: object = None
    headers: Mapping[str, str] = dataclasses.field(default_factory=dict)
    source: str = ""


@dataclasses.dataclass(frozen=True)
class HttpResult:
    request: HttpRequest
    status: int | None  # None when the request failed (``error`` says why)
    headers: Mapping[str, str]  # lower-case names
    body: bytes
    sent_at: float  # time.monotonic() when the request went out
    elapsed: float
    error: str = ""

    def json(self) -> Any:

        return json.loads(self.body.decode())

    @property
    def text(self) -> str:
        return self.body.decode(errors="replace")


def simultaneous_requests(
    base_url: str, requests: list[HttpRequest], *, timeout: float = 30
) -> list[HttpResult]:
    """Send ``requests`` at the same moment: one thread and one fresh connection each (keep-alive
    off: ``Connection: close``), connected first, then released together by a
    :class:`threading.Barrier`. Returns the results in the order of ``requests``; a request that
    fails (refused, reset, timed out) gives a result with ``status=None`` and ``error``.
    """

    parts = urlsplit(base_url)
    host, port = parts.hostname, parts.port or 80
    if host is None:
        raise ValueError(f"no host in {base_url!r}")
    barrier = threading.Barrier(len(requests))
    results: list[HttpResult | None] = [None] * len(requests)

    def one(index: int, req: HttpRequest) -> None:
        conn = http.client.HTTPConnection(
            host, port, timeout=timeout, source_address=(req.source, 0) if req.source else None
        )
        headers = {"Connection": "close", "Accept": "application/json", **req.headers}
        body = None
        if req.json_body is not None:
            body = json.dumps(req.json_body).encode()
            headers.setdefault("Content-Type", "application/json")
        sent_at = time.monotonic()
        try:
            try:
                conn.connect()
            finally:
                barrier.wait(timeout)  # released together even when a connect failed
            sent_at = time.monotonic()
            conn.request(req.method, req.path, body=body, headers=headers)
            response = conn.getresponse()
            data = response.read()
            results[index] = HttpResult(
                req,
                response.status,
                {k.lower(): v for k, v in response.getheaders()},
                data,
                sent_at,
                time.monotonic() - sent_at,
            )
        except Exception as exc:  # noqa: BLE001 - reported in the result
            results[index] = HttpResult(
                req, None, {}, b"", sent_at, time.monotonic() - sent_at, repr(exc)
            )
        finally:
            conn.close()

    threads = [
        threading.Thread(target=one, args=(i, r), name=f"burst-{i}", daemon=True)
        for i, r in enumerate(requests)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout + 10)
    return [
        r
        if r is not None
        else HttpResult(req, None, {}, b"", 0.0, 0.0, "thread did not finish in time")
        for r, req in zip(results, requests, strict=True)
    ]


# --------------------------------------------------------------------------- Chromium


@contextlib.contextmanager
def chromium_browser(
    *,
    headless: bool = True,
    executable_path: str = CHROMIUM_PATH,
    extra_args: tuple[str, ...] = (),
    timeout_ms: float = 30_000,
    allow_django_orm: bool = True,
) -> Iterator[Browser]:
    """Launch Debian's Chromium through Playwright's sync API; yield the ``Browser``.

    Uses ``/usr/bin/chromium`` (never a Playwright-downloaded browser). Playwright's sync API runs
    an asyncio loop in this thread, which makes Django refuse ORM calls in the test
    (``SynchronousOnlyOperation``); with ``allow_django_orm`` (the default) the context sets
    ``DJANGO_ALLOW_ASYNC_UNSAFE=true`` in this process while the browser is open, then restores it.
    """
    if not Path(executable_path).exists():
        raise ServiceError(f"chromium not found at {executable_path} (run `make system-deps`)")

    saved_flag = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    if allow_django_orm:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    playwright: Playwright | None = None
    browser: Browser | None = None
    try:
        playwright = sync_playwright().start()
        try:
            browser = playwright.chromium.launch(
                executable_path=executable_path,
                headless=headless,
                args=[*CHROMIUM_ARGS, *extra_args],
                timeout=timeout_ms,
            )
        except Exception as exc:
            raise ServiceError(f"could not launch {executable_path}: {exc}") from exc
        yield browser
    finally:
        if browser is not None:
            with contextlib.suppress(Exception):
                browser.close()
        if playwright is not None:
            playwright.stop()
        if allow_django_orm:
            if saved_flag is None:
                os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
            else:
                os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = saved_flag


def database_url() -> str:
    """The URL of the database this test process uses (the SQLite test file, or the test database
    on PostgreSQL), for a server or worker subprocess to use the same one."""
    s = connection.settings_dict
    if s["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{s['NAME']}"
    return (
        f"postgres://{s['USER']}:{s['PASSWORD'] or ''}@{s['HOST'] or '127.0.0.1'}:"
        f"{s['PORT'] or 5432}/{s['NAME']}"
    )
