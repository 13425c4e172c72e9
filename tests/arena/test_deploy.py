"""Production settings: Django's deploy checklist, CSP, clickjacking, compression, throttled login."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_check_deploy_passes_with_debug_off(tmp_path):
    # the browser tests' conftest sets DJANGO_ALLOW_ASYNC_UNSAFE in this process; production does not
    clean = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env = {
        **clean,
        "DEBUG": "0",
        "SECRET_KEY": "x" * 30 + "-a-long-random-production-secret-value-0123456789",
        "ALLOWED_HOSTS": "arena.example.com",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
    }
    proc = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no issues" in proc.stdout


def test_debug_off_without_secret_key_refuses_to_start(tmp_path):
    env = {
        **os.environ,
        "DEBUG": "0",
        "SECRET_KEY": "",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
    }
    proc = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert proc.returncode != 0 and "SECRET_KEY must be set" in proc.stderr


@pytest.mark.django_db
def test_pages_carry_csp_frame_protection_and_compress(client, seeded_arena):
    response = client.get("/arenas/durable-execution-engines/", HTTP_ACCEPT_ENCODING="gzip")
    assert response.status_code == 200
    csp = response["Content-Security-Policy"]
    assert "script-src 'self' 'nonce-" in csp and "frame-ancestors 'none'" in csp
    assert response["X-Frame-Options"] == "DENY"
    assert response["Content-Encoding"] == "gzip"
    admin = client.get("/admin/login/")
    assert "Content-Security-Policy" in admin


@pytest.mark.django_db
def test_admin_login_is_throttled(client, django_user_model, settings):
    django_user_model.objects.create_superuser("admin", "a@example.com", "right-password")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        client.post("/admin/login/?next=/admin/", {"username": "admin", "password": "wrong"})
    locked = client.post(
        "/admin/login/?next=/admin/", {"username": "admin", "password": "right-password"}
    )
    assert locked.status_code == 429
