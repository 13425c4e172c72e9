"""Start the site the way it runs in production and use it once (``make smoke-prod``).

With honcho, the Procfile's three processes (gunicorn, a Celery worker, Celery beat) start with
DEBUG=0 on a scratch SQLite database (migrated, the bundled arena loaded, static files collected) and
the two Redis roles of docs/operations.md: a broker redis-server (``noeviction``) and a cache one
(``allkeys-lru``, 8 MB). Then, over HTTP: /readyz answers with no warning (the broker keeps every
key, the beat's sweep ran), a page serves; the worker is killed (SIGKILL) and comes back while
honcho keeps web and beat running; a flag is filed through the flag form (its CSRF token and
cookie); a moderator upholds it through the service (``manage.py shell``, there is no command for
it), the restarted worker recomputes the scores (the API's ``scores_computed_at`` moves), and the
cell page shows the corrected verdict. honcho is stopped with SIGTERM: every process must exit,
honcho with code 0. Prints each step; exits non-zero on the first failure.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
from datetime import datetime
from pathlib import Path

BASE = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent
ARENA = "durable-execution-engines"
PICK = """
from stories.models import Cell
cell = Cell.objects.filter(story__arena__slug="{arena}", verdict="full").order_by("pk").first()
print("CELL", cell.pk, cell.verdict)
"""
UPHOLD = """
from django.contrib.auth import get_user_model
from flags.inputs import ModerationDecision
from flags.models import ReviewItem
from flags.services import review_item_uphold
mod, _ = get_user_model().objects.get_or_create(
    username="smoke-mod", defaults={{"is_staff": True, "is_superuser": True}}
)
item = ReviewItem.objects.get(cell_id={cell}, status="pending")
review_item_uphold(item=item, moderator=mod, decision=ModerationDecision(note="Smoke test."))
from django.utils import timezone
print("UPHELD", item.pk, timezone.now().isoformat())
"""


def say(message: str) -> None:
    print(f"smoke-prod: {message}", flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(what: str, check, timeout: float = 30.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            got = check()
        except OSError:
            got = None
        if got:
            return got
        time.sleep(0.2)
    raise SystemExit(f"smoke-prod: FAILED: {what} within {timeout:.0f} s")


def request(port: int, method: str, path: str, body: str = "", headers: dict | None = None):  # type: ignore[no-untyped-def,type-arg]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path, body=body or None, headers=headers or {})
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read().decode()
    finally:
        conn.close()


def manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [str(VENV_BIN / "python"), "manage.py", *args],
        cwd=BASE,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode != 0:
        raise SystemExit(f"smoke-prod: FAILED: manage.py {args[0]}\n{done.stdout}{done.stderr}")
    return done.stdout


def environment(scratch: Path, redis_port: int, cache_port: int, web_port: int) -> dict[str, str]:
    keep = ("HOME", "LANG", "LC_ALL", "TMPDIR")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env |= {
        "PATH": f"{VENV_BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "0",
        "DATABASE_URL": f"sqlite:///{scratch / 'db.sqlite3'}",
        "CELERY_BROKER_URL": f"redis://127.0.0.1:{redis_port}/0",
        "REDIS_URL": f"redis://127.0.0.1:{cache_port}/0",
        "PORT": str(web_port),
        "WEB_CONCURRENCY": "2",
        "STATE_DIR": str(scratch / "state"),
        "RECOMPUTE_DEBOUNCE_SECONDS": "0",
        "STALE_SWEEP_SECONDS": "2",
        "PYTHONUNBUFFERED": "1",
    }
    return env


def start_redis(scratch: Path, port: int, *options: str) -> subprocess.Popen[bytes]:
    server = shutil.which("redis-server") or "/usr/bin/redis-server"
    proc = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        + list(options),
        cwd=scratch,
        stdout=subprocess.DEVNULL,
    )

    def pong() -> bool:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")

    wait_until("redis-server answers", pong, 10)
    say(f"redis-server on 127.0.0.1:{port} {' '.join(options)}".rstrip())
    return proc


def prepare(env: dict[str, str]) -> int:
    manage(env, "migrate", "--noinput")
    manage(env, "load_bundled_arena")
    manage(env, "collectstatic", "--noinput")
    line = next(
        x
        for x in manage(env, "shell", "-c", PICK.format(arena=ARENA)).splitlines()
        if x.startswith("CELL")
    )
    cell = int(line.split()[1])
    say(f"scratch database migrated, bundled arena loaded, static collected; cell {cell} is full")
    return cell


def scores_computed_at(port: int) -> datetime | None:
    status, _, body = request(port, "GET", f"/api/arenas/{ARENA}/")
    assert status == 200, status
    at = json.loads(body)["scores_computed_at"]
    return datetime.fromisoformat(at) if at else None


def cell_verdict(port: int, cell: int) -> str:
    """The verdict the cell page names (its title reads "Product: VERDICT on …")."""
    status, _, body = request(port, "GET", f"/cells/{cell}/")
    title = re.search(r"<title>[^<]*?: ([a-z/]+) on ", body)
    if status != 200 or not title:
        raise SystemExit(f"smoke-prod: FAILED: the cell page answered {status} without a verdict")
    return title.group(1)


def file_flag(port: int, cell: int) -> None:
    status, headers, body = request(port, "GET", f"/cells/{cell}/flag/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', body)
    cookie = re.search(r"csrftoken=([^;]+)", headers.get("Set-Cookie", ""))
    if status != 200 or not token or not cookie:
        raise SystemExit(f"smoke-prod: FAILED: the flag form ({status}) has no CSRF token/cookie")
    form = urllib.parse.urlencode(
        {
            "csrfmiddlewaretoken": token.group(1),
            "reason": "wrong_verdict",
            "proposed_verdict": "partial",
            "explanation": "The docs say this needs a plug-in; only part of it works out of the box.",
        }
    )
    status, _, body = request(
        port,
        "POST",
        f"/cells/{cell}/flag/",
        form,
        {
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={cookie.group(1)}",
        },
    )
    if status >= 400:
        raise SystemExit(f"smoke-prod: FAILED: filing the flag answered {status}\n{body[:2000]}")
    say(f"flag filed through the form on /cells/{cell}/flag/ ({status})")


def ready_without_warnings(port: int) -> bool:
    status, _, body = request(port, "GET", "/readyz?strict=1")
    return status == 200 and "warnings" not in json.loads(body)


def worker_pid(honcho: subprocess.Popen[bytes]) -> int | None:
    """The Celery worker's main process: the child of the worker's respawn.py under this honcho
    (honcho starts each process in a session of its own: found by parentage, not by session)."""
    rows = subprocess.run(
        ["ps", "-e", "-o", "pid=,ppid=,args="], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    procs = [(int(pid), int(ppid), args) for pid, ppid, args in (r.split(None, 2) for r in rows)]
    ours, grew = {honcho.pid}, True
    while grew:
        more = {pid for pid, ppid, _ in procs if ppid in ours} - ours
        ours |= more
        grew = bool(more)
    wrapper = [
        pid for pid, _, a in procs if pid in ours and "respawn.py celery -A arena worker" in a
    ]
    children = [pid for pid, ppid, _ in procs if wrapper and ppid == wrapper[0]]
    return children[0] if children else None


def kill_the_worker(honcho: subprocess.Popen[bytes], log: Path, port: int) -> None:
    """SIGKILL the worker (a crash: no shutdown at all); it must come back on its own while honcho
    keeps web and beat running."""
    pid = wait_until("the worker's process", lambda: worker_pid(honcho), 30)
    readies = log.read_text().count(" ready.")
    os.kill(pid, signal.SIGKILL)
    wait_until(
        "the worker to start again",
        lambda: (
            worker_pid(honcho) not in (None, pid) and log.read_text().count(" ready.") > readies
        ),
        60,
    )
    text = log.read_text()
    if "stopped (rc=" in text or request(port, "GET", "/healthz")[0] != 200:
        raise SystemExit("smoke-prod: FAILED: honcho stopped a process when the worker died")
    say(
        f"worker killed (SIGKILL to pid {pid}): respawned as pid {worker_pid(honcho)}, web and beat kept running"
    )


def exercise(
    env: dict[str, str], port: int, cell: int, honcho: subprocess.Popen[bytes], log: Path
) -> None:
    wait_until("/readyz answers 200", lambda: request(port, "GET", "/readyz")[0] == 200, 60)
    say("/readyz 200 (database, cache and broker answer)")
    wait_until("/readyz without warnings", lambda: ready_without_warnings(port), 60)
    say(
        "/readyz?strict=1 200 without warnings (the broker's Redis is noeviction, the beat's sweep ran)"
    )
    status, headers, body = request(port, "GET", f"/arenas/{ARENA}/")
    assert status == 200 and "'unsafe-inline'" not in headers["Content-Security-Policy"], status
    say(f"/arenas/{ARENA}/ 200, {len(body)} characters")
    kill_the_worker(honcho, log, port)
    say(f"/cells/{cell}/ shows the verdict {cell_verdict(port, cell)!r}")
    file_flag(port, cell)
    out = manage(env, "shell", "-c", UPHOLD.format(cell=cell))
    upheld_at = datetime.fromisoformat(
        next(x for x in out.splitlines() if x.startswith("UPHELD")).split()[2]
    )
    say("flag upheld through flags.services.review_item_uphold (manage.py shell)")
    after = wait_until(
        "the worker recomputes the scores",
        lambda: (at := scores_computed_at(port)) is not None and at > upheld_at and at,
        60,
    )
    say(
        f"the worker recomputed the scores after the uphold (scores_computed_at {after.isoformat()})"
    )
    verdict = cell_verdict(port, cell)
    if verdict != "partial":
        raise SystemExit(f"smoke-prod: FAILED: the cell page shows {verdict!r}, not 'partial'")
    say(f"/cells/{cell}/ shows the corrected verdict {verdict!r}")


def stop(honcho: subprocess.Popen[bytes], port: int, log: Path) -> None:
    """SIGTERM to honcho: it passes it on to the three and exits once they have. Each must exit with
    code 0 (honcho prints "web.1 stopped (rc=0)"); honcho itself reports being stopped by SIGTERM
    with 143, its documented convention (128 + 15), and 0 only when the processes ended alone."""
    honcho.send_signal(signal.SIGTERM)
    try:
        code = honcho.wait(timeout=40)
    except subprocess.TimeoutExpired:
        os.killpg(honcho.pid, signal.SIGKILL)
        raise SystemExit("smoke-prod: FAILED: honcho did not stop within 40 s of SIGTERM") from None
    leftovers = subprocess.run(
        ["pgrep", "-s", str(honcho.pid)], capture_output=True, text=True, check=False
    ).stdout.split()
    exits = dict(re.findall(r"^(\w+)\.1 stopped \(rc=(-?\d+)\)", log.read_text(), re.MULTILINE))
    if code not in (0, 143) or leftovers or exits != {"web": "0", "worker": "0", "beat": "0"}:
        raise SystemExit(
            f"smoke-prod: FAILED: honcho exited {code}, processes {exits}, still running {leftovers}"
        )
    try:
        request(port, "GET", "/healthz")
    except OSError:
        say(f"SIGTERM: web, worker and beat exited with code 0, honcho with {code}")
        return
    raise SystemExit("smoke-prod: FAILED: the web still answers after the stop")


def main() -> int:
    started = time.monotonic()
    scratch = Path(tempfile.mkdtemp(prefix="arena-smoke-"))
    redis_port, cache_port, web_port = free_port(), free_port(), free_port()
    env = environment(scratch, redis_port, cache_port, web_port)
    redis = start_redis(scratch, redis_port)  # the broker: noeviction, Redis's default
    cache = start_redis(
        scratch, cache_port, "--maxmemory", "8mb", "--maxmemory-policy", "allkeys-lru"
    )
    honcho = None
    try:
        cell = prepare(env)
        log_path = scratch / "honcho.log"
        log = log_path.open("wb")
        honcho = subprocess.Popen(
            [str(VENV_BIN / "honcho"), "--no-prefix", "-f", "Procfile", "-e", "/dev/null", "start"],
            cwd=BASE,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        say(f"honcho started web (gunicorn on $PORT={web_port}), worker and beat from the Procfile")
        exercise(env, web_port, cell, honcho, log_path)
        stop(honcho, web_port, log_path)
        honcho = None
    except BaseException:
        print(
            (scratch / "honcho.log").read_text()[-6000:]
            if (scratch / "honcho.log").exists()
            else "",
            file=sys.stderr,
        )
        raise
    finally:
        if honcho is not None and honcho.poll() is None:
            # honcho stops its processes (each in a session of its own: a SIGKILL to honcho's
            # group would leave them running)
            honcho.send_signal(signal.SIGTERM)
            try:
                honcho.wait(timeout=40)
            except subprocess.TimeoutExpired:
                os.killpg(honcho.pid, signal.SIGKILL)
        for server in (redis, cache):
            server.terminate()
            server.wait(timeout=10)
        shutil.rmtree(scratch, ignore_errors=True)
    say(f"OK in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
