"""Production settings: Django's deploy checklist, CSP, clickjacking, compression, throttled login."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from axes.models import AccessAttempt
from django.test import Client

ROOT = Path(__file__).resolve().parents[2]


def test_check_deploy_passes_with_debug_off(tmp_path):
    # the browser tests' conftest sets DJANGO_ALLOW_ASYNC_UNSAFE in this process; production does not
    clean = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env = {
        **clean,
        "DEBUG": "0",
        "SECRET_KEY": "x" * 30 + "-a-long-random-production-secret-value-0123456789",
        "ALLOWED_HOSTS": "arena.example.com",
        "SITE_URL": "https://arena.example.com",
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
    # scripts only from our static files; no nonce: the page is cached and shared, and a nonce
    # served twice would be no nonce at all
    assert "script-src 'self';" in csp and "nonce" not in csp and "frame-ancestors 'none'" in csp
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


def admin_login(client, username: str, password: str, **meta):
    return client.post(
        "/admin/login/?next=/admin/", {"username": username, "password": password}, **meta
    )


@pytest.mark.django_db
def test_admin_lockout_is_per_username_and_address(client, django_user_model, settings):
    """Five wrong passwords from one address lock that address out for that username only."""
    settings.TRUSTED_PROXIES = 0
    django_user_model.objects.create_superuser("mod", "m@example.com", "right-password")
    attacker = {"REMOTE_ADDR": "198.51.100.7"}
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert admin_login(client, "mod", "guess", **attacker).status_code == 200
    assert admin_login(client, "mod", "guess", **attacker).status_code == 429  # the 5th locks
    assert admin_login(client, "mod", "right-password", **attacker).status_code == 429
    assert AccessAttempt.objects.get().ip_address == "198.51.100.7"
    # the moderator, from another address, is not locked out
    moderator = Client()
    ok = admin_login(moderator, "mod", "right-password", REMOTE_ADDR="203.0.113.9")
    assert ok.status_code == 302 and ok["Location"] == "/admin/"


@pytest.mark.django_db
def test_admin_lockout_behind_a_proxy_keys_on_the_real_client(client, django_user_model, settings):
    """Behind one proxy every request comes from the proxy's address: the lock-out must key on the
    client the proxy saw, and a client-written X-Forwarded-For entry must not dodge it or aim it."""
    settings.TRUSTED_PROXIES = 1
    settings.TRUSTED_PROXY_IPS = ["10.0.0.1"]
    django_user_model.objects.create_superuser("mod", "m@example.com", "right-password")
    proxy = "10.0.0.1"
    # the attacker claims to be the moderator's address, differently each time; the proxy appends
    # the attacker's real address
    for i in range(settings.AXES_FAILURE_LIMIT):
        spoof = f"203.0.113.9, 192.0.2.{i}"
        admin_login(
            client, "mod", "guess", REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR=f"{spoof}, 198.51.100.7"
        )
    locked = admin_login(
        client,
        "mod",
        "right-password",
        REMOTE_ADDR=proxy,
        HTTP_X_FORWARDED_FOR="203.0.113.50, 198.51.100.7",
    )
    assert locked.status_code == 429
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"198.51.100.7"}
    # the moderator comes through the same proxy from their own address and logs in
    ok = admin_login(
        Client(), "mod", "right-password", REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR="203.0.113.9"
    )
    assert ok.status_code == 302 and ok["Location"] == "/admin/"


@pytest.mark.django_db
def test_admin_lockout_covers_the_attackers_ipv6_64(client, django_user_model, settings):
    """An IPv6 client owns its /64: walking through it does not reset the count."""
    settings.TRUSTED_PROXIES = 0
    django_user_model.objects.create_superuser("mod", "m@example.com", "right-password")
    for i in range(settings.AXES_FAILURE_LIMIT):
        admin_login(client, "mod", "guess", REMOTE_ADDR=f"2001:db8:6:6::{i + 1:x}")
    locked = admin_login(client, "mod", "right-password", REMOTE_ADDR="2001:db8:6:6:ffff::1")
    assert locked.status_code == 429
    ok = admin_login(Client(), "mod", "right-password", REMOTE_ADDR="2001:db8:6:7::1")
    assert ok.status_code == 302


def test_health_checks_skip_the_https_redirect(tmp_path):
    """Probes speak plain HTTP to the app: /healthz must not answer with the HTTPS redirect."""
    clean = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env = {
        **clean,
        "DEBUG": "0",
        "SECRET_KEY": "x" * 30 + "-a-long-random-production-secret-value-0123456789",
        "ALLOWED_HOSTS": "arena.example.com",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    code = (
        "import django; django.setup(); from django.test import Client; c = Client();"
        "print(c.get('/healthz', HTTP_HOST='arena.example.com').status_code,"
        " c.get('/', HTTP_HOST='arena.example.com').status_code)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["200", "301"]
