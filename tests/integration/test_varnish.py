"""The site behind a real Varnish (deploy/varnish/default.vcl) in front of gunicorn: public pages are
kept and served as hits; a moderator's uphold purges exactly its arena's pages (and the site-wide
ones) by surrogate key, so Varnish serves the corrected verdict within a second while another
arena's pages stay hits. Prints the purge delay (the uphold's commit to the first fresh answer)."""

from __future__ import annotations

import json
import shutil
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.db import transaction

from arena.models import Arena
from flags.forms import DecisionForm, FlagForm
from flags.services import flag_submit, review_item_uphold
from ops.generate import arena_generate
from stories.models import Cell
from stories.values import Verdict
from tests.infra.services import (
    PROJECT_ROOT,
    LiveServer,
    _ManagedProcess,
    database_url,
    free_port,
    port_is_open,
)

VARNISHD = shutil.which("varnishd") or (
    "/usr/sbin/varnishd" if Path("/usr/sbin/varnishd").exists() else None
)
VCL = PROJECT_ROOT / "deploy" / "varnish" / "default.vcl"
TOKEN = "purge-secret-for-the-test"

pytestmark = [
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        VARNISHD is None, reason="varnishd is not installed (apt-get install varnish)"
    ),
]


class Varnish(_ManagedProcess):
    """``varnishd -F`` on a free port with the bundled VCL, its backend pointed at ``backend_port``,
    in a work folder of its own (``-n``; no jail, so it runs as any user)."""

    name = "varnish"

    def __init__(self, backend_port: int, env: dict[str, str] | None = None):
        super().__init__(env)
        self.port = free_port()
        self.vcl = self.tmpdir / "default.vcl"
        text = VCL.read_text()
        assert '.port = "8000";' in text
        self.vcl.write_text(text.replace('.port = "8000";', f'.port = "{backend_port}";'))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        assert VARNISHD is not None
        return [
            VARNISHD, "-F", "-j", "none",
            "-a", f"127.0.0.1:{self.port}", "-f", str(self.vcl),
            "-n", str(self.tmpdir / "work"), "-s", "malloc,64m",
        ]  # fmt: skip

    def _is_ready(self) -> bool:
        return port_is_open(self.port)

    def start(self, timeout: float = 30) -> Varnish:
        self._spawn(timeout)
        return self


@pytest.fixture
def behind_varnish(seeded_arena) -> Iterator[tuple[LiveServer, Varnish]]:
    """gunicorn on the test database (no broker: a change's recompute and purge run in the process
    that makes it), Varnish in front requiring the purge token."""
    env = {
        "DATABASE_URL": database_url(),
        "CONN_MAX_AGE": "0",  # the test database is flushed under it afterwards
        "CELERY_BROKER_URL": None,
        "SECRET_KEY": settings.SECRET_KEY,
        "PAGE_CACHE": "1",
        # configured to purge, as a web in front of Varnish is: it reads a page's version on every
        # request (this one changes nothing: the test's process purges)
        "HTTP_CACHE_PURGE_URLS": "http://127.0.0.1:9/",
    }
    server = LiveServer(env, server="gunicorn", workers=1, threads=4, ready_path="/healthz")
    varnish = Varnish(server.port, env={"VARNISH_PURGE_TOKEN": TOKEN})
    try:
        server.start(timeout=60)
        varnish.start()
        yield server, varnish
    finally:
        varnish.close()
        server.close()


def fetch(base: str, path: str, method: str = "GET", **headers: str) -> tuple[int, dict, str]:
    request = urllib.request.Request(
        base + path, method=method, headers={"Host": "localhost", **headers}
    )
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read().decode()


def cached_twice(base: str, path: str) -> dict:
    """Fetch ``path`` until Varnish serves it as a hit; the hit's headers."""
    status, first, _ = fetch(base, path)
    assert status == 200, (path, status)
    status, again, _ = fetch(base, path)
    assert status == 200 and again["X-Cache"] == "HIT", (path, first, again)
    assert len(again["X-Varnish"].split()) == 2  # (this request's id, and the kept object's)
    return again


def test_an_uphold_purges_its_arena_at_varnish_and_leaves_the_other_cached(
    behind_varnish, seeded_arena, moderator, settings
):
    server, varnish = behind_varnish
    other = arena_generate(slug="other-arena", products=3, stories=4)
    settings.HTTP_CACHE_PURGE_URLS = [varnish.url + "/"]
    settings.HTTP_CACHE_PURGE_TOKEN = TOKEN
    cell = (
        Cell.objects.filter(story__arena=seeded_arena, verdict=Verdict.FULL, quality__gte=8)
        .order_by("pk")
        .first()
    )
    flag = flag_submit(
        cell=cell,
        form=FlagForm(
            {"reason": "wrong_verdict", "explanation": "The docs say this is not supported."}
        ),
        client="varnish-test",
    )
    arena_url, cell_url = seeded_arena.get_absolute_url(), f"/cells/{cell.pk}/"
    other_url = other.get_absolute_url()
    for path in (arena_url, cell_url):
        hit = cached_twice(varnish.url, path)
        assert f"arena-{seeded_arena.pk}" in hit["Surrogate-Key"].split()  # (shown to purgers)
    other_before = cached_twice(varnish.url, other_url)
    _, _, cell_before = fetch(varnish.url, cell_url)
    assert "Not supported." not in cell_before

    # what the VCL refuses: a purge without the token, a request with a session or CSRF cookie
    assert fetch(varnish.url, "/", "PURGE", **{"Surrogate-Key": "site"})[0] == 403
    status, passed, _ = fetch(varnish.url, cell_url, Cookie="csrftoken=abc")
    assert status == 200 and passed["X-Cache"] == "MISS"

    with transaction.atomic():
        review_item_uphold(
            item=flag.item,
            moderator=moderator,
            form=DecisionForm({"note": "Not supported.", **{"verdict": "none"}}),
        )
    # the purge went at the commit (no broker: in this process): the very next request through
    # Varnish gets the new verdict, never the banned page
    status, headers, body = fetch(varnish.url, cell_url)
    assert status == 200 and "Not supported." in body, "Varnish still serves the old verdict"
    assert headers["X-Cache"] == "MISS"
    status, arena_after, _ = fetch(varnish.url, arena_url)
    assert status == 200 and arena_after["X-Cache"] == "MISS"  # the arena's page went too

    status, other_after, _ = fetch(varnish.url, other_url)
    assert other_after["X-Cache"] == "HIT"  # the other arena's page stayed: the same object
    assert other_after["X-Varnish"].split()[1] == other_before["X-Varnish"].split()[1]
    assert int(other_after["Age"]) >= int(other_before["Age"])
    assert Arena.objects.filter(pk=other.pk).exists()


# ------------------------------------------------ forwarded headers: written by Varnish, never a client's


class VarnishWithTls(Varnish):
    """The bundled VCL with a second listener named ``tls``, as a TLS terminator in front would
    reach (plain HTTP here, without the PROXY protocol: the name is what makes it https)."""

    def __init__(self, backend_port: int, env: dict[str, str] | None = None):
        super().__init__(backend_port, env)
        self.tls_port = free_port()

    def command(self) -> list[str]:
        return [*super().command(), "-a", f"tls=127.0.0.1:{self.tls_port}"]


@pytest.fixture
def trusting_varnish(seeded_arena) -> Iterator[tuple[LiveServer, VarnishWithTls]]:
    """gunicorn trusting one proxy on loopback (the README's setting behind Varnish), links on the
    request's scheme and host (no SITE_URL), two flags an hour per client."""
    env = {
        "DATABASE_URL": database_url(),
        "CONN_MAX_AGE": "0",
        "CELERY_BROKER_URL": None,
        "SECRET_KEY": settings.SECRET_KEY,
        "PAGE_CACHE": "1",
        "TRUSTED_PROXIES": "1",
        "TRUSTED_PROXY_IPS": None,
        "SITE_URL": None,
        "FLAG_RATE": "2/hour",
    }
    server = LiveServer(env, server="gunicorn", workers=1, threads=4, ready_path="/healthz")
    varnish = VarnishWithTls(server.port)
    try:
        server.start(timeout=60)
        varnish.start()
        yield server, varnish
    finally:
        varnish.close()
        server.close()


def canonical(body: str) -> str:
    start = body.index('<link rel="canonical" href="') + len('<link rel="canonical" href="')
    return body[start : body.index('"', start)]


def test_a_forged_proto_never_reaches_a_cached_page(trusting_varnish, seeded_arena):
    _, varnish = trusting_varnish
    path = seeded_arena.get_absolute_url()
    forged = {"X-Forwarded-Proto": "https", "X-Forwarded-Ssl": "on", "X-Forwarded-Host": "evil"}
    status, first, body = fetch(varnish.url, path, **forged)
    assert status == 200 and first["X-Cache"] == "MISS"
    assert canonical(body) == f"http://localhost{path}"
    status, later, body = fetch(varnish.url, path)  # a plain visitor after it
    assert status == 200 and later["X-Cache"] == "HIT"
    assert canonical(body) == f"http://localhost{path}"
    # what came in through the TLS terminator's listener is https, and kept apart
    tls = f"http://127.0.0.1:{varnish.tls_port}"
    status, secure, body = fetch(tls, path)
    assert status == 200 and secure["X-Cache"] == "MISS"
    assert canonical(body) == f"https://localhost{path}"
    assert canonical(fetch(varnish.url, path)[2]) == f"http://localhost{path}"
    assert canonical(fetch(tls, path, **{"X-Forwarded-Proto": "http"})[2]).startswith("https:")


def post_flag(base: str, cell: Cell, forwarded_for: str) -> int:
    body = {"cell": cell.pk, "reason": "wrong_verdict", "explanation": "Not what the docs say."}
    request = urllib.request.Request(
        base + "/api/flags/",
        data=json.dumps(body).encode(),
        method="POST",
        headers={
            "Host": "localhost",
            "Content-Type": "application/json",
            "X-Forwarded-For": forwarded_for,
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_a_client_rotating_x_forwarded_for_through_varnish_is_one_client(
    trusting_varnish, seeded_arena
):
    _, varnish = trusting_varnish
    cells = list(Cell.objects.filter(story__arena=seeded_arena).order_by("pk")[:4])
    codes = [post_flag(varnish.url, cell, f"192.0.2.{i}") for i, cell in enumerate(cells)]
    assert codes == [201, 201, 429, 429]
