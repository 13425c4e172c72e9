"""Forwarded headers are believed only from our own proxies (TRUSTED_PROXIES, TRUSTED_PROXY_IPS):
a client that reaches the app directly, as it could when gunicorn listened on every address
behind a proxy the operator trusts, cannot dodge the admin lock-out or the flag limit by writing a
new X-Forwarded-For each time, nor make the site believe it came over https."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from flags.models import Flag
from tests.factories import CellFactory

pytestmark = pytest.mark.django_db

ROOT = Path(settings.BASE_DIR)
DIRECT = "198.51.100.7"  # a client on the internet, connected to gunicorn itself
VARNISH = "127.0.0.1"  # our proxy, on loopback (TRUSTED_PROXY_IPS' default)
EXPLANATION = "The docs now describe a built-in approval step with a webhook resume."


@pytest.fixture(autouse=True)
def behind_one_proxy(settings):
    """The README's setting behind Varnish."""
    settings.TRUSTED_PROXIES = 1
    settings.TRUSTED_PROXY_IPS = ["127.0.0.1", "::1"]


def admin_login(password: str, remote: str, xff: str):
    return Client().post(
        "/admin/login/?next=/admin/",
        {"username": "mod", "password": password},
        REMOTE_ADDR=remote,
        HTTP_X_FORWARDED_FOR=xff,
    )


def test_a_direct_client_rotating_x_forwarded_for_is_locked_out(django_user_model, settings):
    django_user_model.objects.create_superuser("mod", "m@example.com", "right-password")
    for i in range(settings.AXES_FAILURE_LIMIT):
        admin_login("guess", DIRECT, f"192.0.2.{i}")
    locked = admin_login("right-password", DIRECT, "192.0.2.200")
    assert locked.status_code == 429
    # through the proxy, the moderator's own address is another client and signs in
    ok = admin_login("right-password", VARNISH, "203.0.113.9")
    assert ok.status_code == 302 and ok["Location"] == "/admin/"


def file_flag(cell, remote: str, xff: str) -> int:
    body = {"cell": cell.pk, "reason": "wrong_verdict", "explanation": EXPLANATION}
    return (
        Client()
        .post(
            "/api/flags/",
            json.dumps(body),
            content_type="application/json",
            REMOTE_ADDR=remote,
            HTTP_X_FORWARDED_FOR=xff,
        )
        .status_code
    )


def test_a_direct_client_rotating_x_forwarded_for_is_rate_limited_on_flags(settings):
    settings.FLAG_RATE = "3/hour"
    cells = CellFactory.create_batch(5)
    codes = [file_flag(cell, DIRECT, f"192.0.2.{i}") for i, cell in enumerate(cells)]
    assert codes == [201, 201, 201, 429, 429]
    assert Flag.objects.count() == 3
    # clients behind the proxy are told apart by the address the proxy wrote
    assert file_flag(cells[4], VARNISH, "203.0.113.9") == 201


def visit(remote: str, proto: str):
    """The home page, asked for on the site's host by ``remote`` claiming the scheme ``proto``."""
    return Client().get(
        "/", REMOTE_ADDR=remote, HTTP_HOST="testserver", HTTP_X_FORWARDED_PROTO=proto
    )


def canonical(response) -> str:
    html = response.content.decode()
    start = html.index('<link rel="canonical" href="') + len('<link rel="canonical" href="')
    return html[start : html.index('"', start)]


def test_a_forged_x_forwarded_proto_is_not_believed_from_a_direct_client(settings):
    settings.SITE_URL = ""
    page = visit(DIRECT, "https")
    assert page.status_code == 200 and canonical(page) == "http://testserver/"
    # from our proxy it is the visitor's scheme
    proxied = visit(VARNISH, "https")
    assert proxied.status_code == 200 and canonical(proxied) == "https://testserver/"
    # with no proxy trusted, loopback is a client like any other
    settings.TRUSTED_PROXIES = 0
    plain = visit(VARNISH, "https")
    assert canonical(plain) == "http://testserver/"


def test_the_https_redirect_is_not_dodged_by_a_forged_proto(settings):
    settings.SECURE_SSL_REDIRECT = True
    direct = visit(DIRECT, "https")
    assert direct.status_code == 301 and direct["Location"] == "https://testserver/"
    proxied = visit(VARNISH, "https")
    assert proxied.status_code == 200


def gunicorn_bind(**env: str) -> str:
    """gunicorn's bind as gunicorn.conf.py sets it from ``env`` (gunicorn prints its config)."""
    keep = ("PATH", "HOME", "LANG", "VIRTUAL_ENV")
    environ = {k: os.environ[k] for k in keep if k in os.environ} | env
    done = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "gunicorn"), "--print-config", "arena.wsgi"],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    lines = {
        k.strip(): v.strip() for k, _, v in (x.partition("=") for x in done.stdout.splitlines())
    }
    assert lines["forwarded_allow_ips"] == "[]" and lines["secure_scheme_headers"] == "{}"
    return lines["bind"]


@pytest.mark.parametrize(
    ("env", "bind"),
    [
        ({}, "['0.0.0.0:8000']"),  # no proxy: gunicorn is the front
        ({"TRUSTED_PROXIES": "1", "PORT": "9000"}, "['127.0.0.1:9000']"),
        ({"TRUSTED_PROXIES": "2", "BIND": "10.0.0.5:8000"}, "['10.0.0.5:8000']"),
    ],
)
def test_gunicorn_listens_on_loopback_when_a_proxy_is_trusted(env, bind):
    assert gunicorn_bind(**env) == bind
