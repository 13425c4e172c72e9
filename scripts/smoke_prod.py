"""Start the site the way it runs in production and use it once (``make smoke-prod``): honcho runs
the Procfile with DEBUG=0, a scratch SQLite database and the two Redis roles of docs/operations.md.
/readyz answers without warnings, a page serves; the worker is killed and comes back while web and
beat keep running; a flag filed through the form and upheld through the service (``manage.py
shell``) is recomputed by the worker, and the cell page shows the corrected verdict; SIGTERM stops
every process with code 0. Prints each step; exits non-zero on the first failure."""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
from datetime import datetime
from pathlib import Path

from servers import ROOT, fetch, free_port, redis_server

VENV_BIN = Path(sys.executable).parent
ARENA = "durable-execution-engines"
PICK = """from stories.models import Cell
print("CELL", Cell.objects.filter(story__arena__slug="{arena}", verdict="full").order_by("pk")[0].pk)
"""
UPHOLD = """from django.contrib.auth import get_user_model
from django.utils import timezone
from flags.forms import DecisionForm
from flags.models import ReviewItem
from flags.services import review_item_uphold
mod, _ = get_user_model().objects.get_or_create(
    username="smoke-mod", defaults={{"is_staff": True, "is_superuser": True}}
)
item = ReviewItem.objects.get(cell_id={cell}, status="pending")
review_item_uphold(item=item, moderator=mod, form=DecisionForm({{"note": "Smoke test."}}))
print("UPHELD", item.pk, timezone.now().isoformat())
"""


def say(message: str) -> None:
    print(f"smoke-prod: {message}", flush=True)


def fail(message: str) -> SystemExit:
    return SystemExit(f"smoke-prod: FAILED: {message}")


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
    raise fail(f"{what} within {timeout:.0f} s")


def request(port: int, path: str, body: str = "", headers: dict | None = None):  # type: ignore[no-untyped-def,type-arg]
    """GET ``path`` (POST with a ``body``): (status, headers by lower-case name, text)."""
    method = "POST" if body else "GET"
    status, got, data = fetch(f"http://127.0.0.1:{port}", path, headers or {}, method, body or None)
    return status, got, data.decode()


def manage(env: dict[str, str], *args: str) -> str:
    command = [str(VENV_BIN / "python"), "manage.py", *args]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise fail(f"manage.py {args[0]}\n{done.stdout}{done.stderr}")
    return done.stdout


def environment(scratch: Path, broker: str, cache: str) -> dict[str, str]:
    env = {k: os.environ[k] for k in ("HOME", "LANG", "LC_ALL", "TMPDIR") if k in os.environ}
    return env | {
        "PATH": f"{VENV_BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "0",
        "DATABASE_URL": f"sqlite:///{scratch / 'db.sqlite3'}",
        "CELERY_BROKER_URL": f"{broker}/0",
        "REDIS_URL": f"{cache}/0",
        "PORT": str(free_port()),
        "WEB_CONCURRENCY": "2",
        "STATE_DIR": str(scratch / "state"),
        "STATIC_ROOT": str(scratch / "static"),  # not the tree's: tests serve from it meanwhile
        "RECOMPUTE_DEBOUNCE_SECONDS": "0",
        "STALE_SWEEP_SECONDS": "2",
        "PYTHONUNBUFFERED": "1",
    }


def prepare(env: dict[str, str]) -> int:
    for command in (
        ["migrate", "--noinput"],
        ["load_bundled_arena"],
        ["collectstatic", "--noinput"],
    ):
        manage(env, *command)
    out = manage(env, "shell", "-c", PICK.format(arena=ARENA)).splitlines()
    cell = int(next(x for x in out if x.startswith("CELL")).split()[1])
    say(f"scratch database migrated, bundled arena loaded, static collected; cell {cell} is full")
    return cell


def cell_verdict(port: int, cell: int) -> str:
    """The verdict the cell page names (its title reads "Product: VERDICT on …")."""
    status, _, body = request(port, f"/cells/{cell}/")
    title = re.search(r"<title>[^<]*?: ([a-z/]+) on ", body)
    if status != 200 or not title:
        raise fail(f"the cell page answered {status} without a verdict")
    return title.group(1)


def file_flag(port: int, cell: int) -> None:
    status, headers, body = request(port, f"/cells/{cell}/flag/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', body)
    cookie = re.search(r"csrftoken=([^;]+)", headers.get("set-cookie", ""))
    if status != 200 or not token or not cookie:
        raise fail(f"the flag form ({status}) has no CSRF token/cookie")
    explanation = "The docs say this needs a plug-in; only part of it works out of the box."
    form = {"csrfmiddlewaretoken": token.group(1), "reason": "wrong_verdict"}
    form |= {"proposed_verdict": "partial", "explanation": explanation}
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    headers["Cookie"] = f"csrftoken={cookie.group(1)}"
    status, _, body = request(port, f"/cells/{cell}/flag/", urllib.parse.urlencode(form), headers)
    if status >= 400:
        raise fail(f"filing the flag answered {status}\n{body[:2000]}")
    say(f"flag filed through the form on /cells/{cell}/flag/ ({status})")


def worker_pid(honcho: subprocess.Popen[bytes]) -> int | None:
    """The Celery worker's main process: the child of the worker's respawn.py under this honcho
    (honcho starts each process in a session of its own: found by parentage, not by session)."""
    ps = ["ps", "-e", "-o", "pid=,ppid=,args="]
    rows = subprocess.run(ps, capture_output=True, text=True, check=True).stdout.splitlines()
    procs = [(int(pid), int(ppid), args) for pid, ppid, args in (r.split(None, 2) for r in rows)]
    ours, grew = {honcho.pid}, True
    while grew:
        more = {pid for pid, ppid, _ in procs if ppid in ours} - ours
        ours, grew = ours | more, bool(more)
    wrapper = [p for p, _, a in procs if p in ours and "respawn.py celery -A arena worker" in a]
    children = [pid for pid, ppid, _ in procs if wrapper and ppid == wrapper[0]]
    return children[0] if children else None


def kill_the_worker(honcho: subprocess.Popen[bytes], log: Path, port: int) -> None:
    """SIGKILL the worker (a crash: no shutdown at all); it must come back on its own while honcho
    keeps web and beat running."""
    pid = wait_until("the worker's process", lambda: worker_pid(honcho), 30)
    readies = log.read_text().count(" ready.")
    os.kill(pid, signal.SIGKILL)

    def back() -> bool:
        return worker_pid(honcho) not in (None, pid) and log.read_text().count(" ready.") > readies

    wait_until("the worker to start again", back, 60)
    if "stopped (rc=" in log.read_text() or request(port, "/healthz")[0] != 200:
        raise fail("honcho stopped a process when the worker died")
    new = worker_pid(honcho)
    say(f"worker killed (SIGKILL to pid {pid}): respawned as pid {new}, web and beat kept running")


def exercise(env: dict[str, str], cell: int, honcho: subprocess.Popen[bytes], log: Path) -> None:
    port = int(env["PORT"])
    wait_until("/readyz answers 200", lambda: request(port, "/readyz")[0] == 200, 60)
    say("/readyz 200 (database, cache and broker answer)")

    def strict() -> bool:
        status, _, body = request(port, "/readyz?strict=1")
        return status == 200 and "warnings" not in json.loads(body)

    wait_until("/readyz without warnings", strict, 60)
    say("/readyz?strict=1 200 without warnings (the broker's Redis is noeviction, the sweep ran)")
    status, headers, body = request(port, f"/arenas/{ARENA}/")
    assert status == 200 and "'unsafe-inline'" not in headers["content-security-policy"], status
    say(f"/arenas/{ARENA}/ 200, {len(body)} characters")
    kill_the_worker(honcho, log, port)
    say(f"/cells/{cell}/ shows the verdict {cell_verdict(port, cell)!r}")
    file_flag(port, cell)
    out = manage(env, "shell", "-c", UPHOLD.format(cell=cell)).splitlines()
    upheld_at = datetime.fromisoformat(next(x for x in out if x.startswith("UPHELD")).split()[2])
    say("flag upheld through flags.services.review_item_uphold (manage.py shell)")

    def recomputed() -> datetime | None:
        at = json.loads(request(port, f"/api/arenas/{ARENA}/")[2])["scores_computed_at"]
        when = datetime.fromisoformat(at) if at else None
        return when if when and when > upheld_at else None

    after = wait_until("the worker recomputes the scores", recomputed, 60)
    say(f"the worker recomputed the scores after the uphold (scores_computed_at {after})")
    # (a web process reuses the content version it last read for a second: VERSION_SECONDS)
    wait_until("the cell page shows 'partial'", lambda: cell_verdict(port, cell) == "partial", 5)
    say(f"/cells/{cell}/ shows the corrected verdict 'partial'")


def stop(honcho: subprocess.Popen[bytes], port: int, log: Path) -> None:
    """SIGTERM to honcho: it passes it on to the three and exits once they have. Each must exit with
    code 0 (honcho prints "web.1 stopped (rc=0)"); honcho itself reports being stopped by SIGTERM
    with 143, its documented convention (128 + 15), and 0 only when the processes ended alone."""
    honcho.send_signal(signal.SIGTERM)
    try:
        code = honcho.wait(timeout=40)
    except subprocess.TimeoutExpired:
        os.killpg(honcho.pid, signal.SIGKILL)
        raise fail("honcho did not stop within 40 s of SIGTERM") from None
    pgrep = ["pgrep", "-s", str(honcho.pid)]
    leftovers = subprocess.run(pgrep, capture_output=True, text=True).stdout.split()
    exits = dict(re.findall(r"^(\w+)\.1 stopped \(rc=(-?\d+)\)", log.read_text(), re.MULTILINE))
    if code not in (0, 143) or leftovers or exits != {"web": "0", "worker": "0", "beat": "0"}:
        raise fail(f"honcho exited {code}, processes {exits}, still running {leftovers}")
    try:
        request(port, "/healthz")
    except OSError:
        say(f"SIGTERM: web, worker and beat exited with code 0, honcho with {code}")
        return
    raise fail("the web still answers after the stop")


def run(scratch: Path, env: dict[str, str]) -> None:
    cell = prepare(env)
    log = scratch / "honcho.log"
    honcho = None
    try:
        with log.open("wb") as out:
            command = [str(VENV_BIN / "honcho"), "--no-prefix", "-f", "Procfile", "-e", "/dev/null"]
            honcho = subprocess.Popen(
                [*command, "start"],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # stop() finds what is left by this session
            )
        say(f"honcho started web (gunicorn on $PORT={env['PORT']}), worker and beat")
        exercise(env, cell, honcho, log)
        stop(honcho, int(env["PORT"]), log)
    except BaseException:
        print(log.read_text()[-6000:] if log.exists() else "", file=sys.stderr)
        # honcho stops its processes (each in a session of its own: a SIGKILL to honcho's group
        # would leave them running)
        if honcho is not None and honcho.poll() is None:
            honcho.send_signal(signal.SIGTERM)
            try:
                honcho.wait(timeout=40)
            except subprocess.TimeoutExpired:
                os.killpg(honcho.pid, signal.SIGKILL)
        raise


def main() -> int:
    started = time.monotonic()
    # the broker keeps every key (noeviction, Redis's default); the cache evicts (8 MB, LRU)
    with (
        redis_server() as broker,
        redis_server("--maxmemory", "8mb", "--maxmemory-policy", "allkeys-lru") as cache,
        tempfile.TemporaryDirectory(prefix="arena-smoke-") as scratch,
    ):
        if not (broker and cache):
            raise fail("redis-server is not installed (make system-deps)")
        say(f"redis-server as the broker ({broker}) and as the cache ({cache}, allkeys-lru)")
        run(Path(scratch), environment(Path(scratch), broker, cache))
    say(f"OK in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
