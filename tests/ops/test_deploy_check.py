"""``manage.py check --deploy`` is clean with production-like settings (DEBUG off, a long random
secret key, ALLOWED_HOSTS set), run in a subprocess so the settings module reads that environment."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

from django.conf import settings


def _check_deploy(**env: str) -> subprocess.CompletedProcess[str]:
    # a clean environment, as a server's would be (the test run's own knobs, like the browser
    # tests' DJANGO_ALLOW_ASYNC_UNSAFE, are not production's)
    environ = {k: os.environ[k] for k in ("PATH", "HOME", "LANG") if k in os.environ} | env
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=Path(settings.BASE_DIR),
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_with_debug_off():
    done = _check_deploy(
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="arena.example.org",
        SITE_URL="https://arena.example.org",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues" in done.stdout


def test_check_deploy_warns_without_site_url():
    # without it the mails' links would fall back to ALLOWED_HOSTS, canonical links to the Host
    done = _check_deploy(
        DEBUG="0", SECRET_KEY=secrets.token_urlsafe(50), ALLOWED_HOSTS="arena.example.org"
    )
    assert done.returncode != 0
    assert "arena.W040" in done.stdout + done.stderr and "SITE_URL" in done.stdout + done.stderr


def test_check_deploy_reports_a_weak_setting():
    # the same run fails when a production setting is weak (the check can fail)
    done = _check_deploy(
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="arena.example.org",
        SECURE_HSTS_SECONDS="0",
    )
    assert done.returncode != 0 and "security.W004" in done.stdout + done.stderr
