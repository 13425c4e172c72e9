#!/usr/bin/env python
"""End to end, as production runs it: Redis, the site (gunicorn) with CELERY_BROKER_URL, a Celery
worker with beat. Prints what a verdict change does with no worker, with Redis stopped, and how long
the scores take to converge.

    .venv/bin/python -m scripts.durability_check

(run as a module from the project root, so the test helpers in ``tests.infra`` import; the apps
themselves are installed in .venv)
"""

from __future__ import annotations

import base64
import http.cookiejar
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from django_otp.oath import totp

from tests.infra.services import CeleryWorker, LiveServer, redis_server

ROOT = Path(__file__).resolve().parents[1]

SLUG = "durable-execution-engines"
EXPLANATION = "The docs describe a built-in approval step with a webhook resume."


class Session:
    def __init__(self, base: str):
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def csrf(self) -> str:
        return next((c.value for c in self.jar if c.name == "csrftoken"), "")

    def request(self, method: str, path: str, data=None, form: bool = False):
        headers = {"X-CSRFToken": self.csrf(), "Referer": self.base + "/"}
        body = None
        if data is not None and form:
            body = urllib.parse.urlencode(data).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        elif data is not None:
            body = json.dumps(data).encode()
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(self.base + path, data=body, headers=headers, method=method)
        start = time.monotonic()
        try:
            with self.opener.open(req, timeout=10) as resp:
                status, raw = resp.status, resp.read()
        except urllib.error.HTTPError as exc:
            status, raw = exc.code, exc.read()
        elapsed = time.monotonic() - start
        try:
            payload = json.loads(raw)
        except ValueError:
            payload = raw.decode(errors="replace")
        return status, payload, elapsed

    def login(self, username: str, password: str, totp_key: str) -> None:
        """The password, then the code of the user's authenticator (its base32 key)."""
        self.request("GET", "/admin/login/")
        status, _, _ = self.request(
            "POST",
            "/admin/login/?next=/admin/",
            {"username": username, "password": password, "next": "/admin/"},
            form=True,
        )
        assert any(c.name == "sessionid" for c in self.jar), f"login failed ({status})"
        code = f"{totp(base64.b32decode(totp_key.replace(' ', ''))):06d}"
        status, _, _ = self.request(
            "POST", "/admin/second-factor/", {"token": code, "next": "/admin/"}, form=True
        )
        status, _, _ = self.request("GET", "/admin/")
        assert status == 200, f"second factor refused ({status})"


def enrol(env, username: str) -> str:
    """The user's authenticator key, from the enrol_moderator command."""
    out = subprocess.run(
        [sys.executable, "manage.py", "enrol_moderator", username, "--no-qr"],
        cwd=ROOT,
        env={**os.environ, **env},
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return next(line[len("key: ") :] for line in out.splitlines() if line.startswith("key: "))


def manage(env, *args):
    subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**os.environ, **env},
        check=True,
        stdout=subprocess.DEVNULL,
    )


def hatchet(anon: Session):
    _, data, _ = anon.request("GET", f"/api/arenas/{SLUG}/")
    row = next(r for r in data["leaderboard"] if r["product"]["slug"] == "hatchet")
    return data["scores_pending"], row["pa_score"], row["integrity"]


def wait_converged(anon: Session, timeout: float = 90) -> float:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if not hatchet(anon)[0]:
            return time.monotonic() - start
        time.sleep(0.2)
    raise TimeoutError("scores did not converge")


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="arena-durability-"))
    with redis_server() as redis:
        env = {
            "DATABASE_URL": f"sqlite:///{tmp / 'db.sqlite3'}",
            "CELERY_BROKER_URL": redis.url,
            "STALE_SWEEP_SECONDS": "5",
            "DJANGO_SUPERUSER_USERNAME": "mod",
            "DJANGO_SUPERUSER_PASSWORD": "durability-check-pw",
            "DJANGO_SUPERUSER_EMAIL": "mod@example.com",
        }
        manage({**env, "CELERY_BROKER_URL": ""}, "migrate", "--noinput")
        manage({**env, "CELERY_BROKER_URL": ""}, "load_bundled_arena")
        manage(env, "createsuperuser", "--noinput")
        totp_key = enrol(env, "mod")
        web = LiveServer(env, server="gunicorn")
        web.start()
        worker = CeleryWorker(env)
        try:
            anon, mod = Session(web.url), Session(web.url)
            mod.login("mod", "durability-check-pw", totp_key)
            _, matrix, _ = anon.request("GET", f"/api/arenas/{SLUG}/matrix/")
            cells = [
                s["cells"]["hatchet"]["id"]
                for s in matrix["stories"]
                if s["cells"]["hatchet"]["verdict"] == "none"
            ]
            rows = []

            def flag_and_uphold(cell_id: int, label: str):
                s1, flag, t1 = anon.request(
                    "POST",
                    "/api/flags/",
                    {
                        "cell": cell_id,
                        "reason": "wrong_verdict",
                        "explanation": EXPLANATION,
                        "proposed_verdict": "partial",
                        "proposed_quality": 5,
                    },
                )
                assert s1 == 201, flag
                s2, res, t2 = mod.request(
                    "POST", f"/api/flags/{flag['id']}/uphold/", {"note": label}
                )
                assert s2 == 200, res
                rows.append((f"{label}: POST /api/flags/", s1, t1))
                rows.append((f"{label}: POST /api/flags/{{id}}/uphold/", s2, t2))

            before = hatchet(anon)
            flag_and_uphold(cells[0], "no worker")
            time.sleep(2)
            waiting = hatchet(anon)
            queued = redis.client().llen("celery")
            t0 = time.monotonic()
            worker.start()
            t_worker = wait_converged(anon) + (time.monotonic() - t0)
            after_worker = hatchet(anon)

            redis.stop()
            flag_and_uphold(cells[1], "Redis stopped")
            _, page, t_page = anon.request("GET", f"/arenas/{SLUG}/")
            rows.append(
                ("Redis stopped: GET arena page", 200 if isinstance(page, str) else "?", t_page)
            )
            down = hatchet(anon)
            redis.start()
            alive = worker.is_running()
            t_redis = wait_converged(anon)
            final = hatchet(anon)
        except BaseException:
            print(worker.log[-4000:], web.log[-3000:], sep="\n----\n")
            raise
        finally:
            worker.close()
            web.close()
    print("| request | status | time |\n|---|---|---|")
    for name, status, t in rows:
        print(f"| {name} | {status} | {t * 1000:.0f} ms |")
    print()
    print(f"Hatchet before (pending, PA, integrity): {before}")
    print(f"after an uphold with no worker: {waiting}; tasks waiting in Redis: {queued}")
    print(f"converged {t_worker:.1f} s after the worker started: {after_worker}")
    print(f"after an uphold with Redis stopped: {down}")
    print(f"worker still running after the Redis outage: {alive}")
    print(f"converged {t_redis:.1f} s after Redis returned: {final}")


if __name__ == "__main__":
    main()
