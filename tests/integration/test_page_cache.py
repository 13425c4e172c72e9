"""Two gunicorn processes sharing the database and Redis (the page cache), as in production: after
a moderator upholds a flag on one, that one serves the corrected verdict and the new scores at
once, the other within the second it remembers a content version, and an old ETag no longer
revalidates. Runs on the SQLite test file in the first pass and on
PostgreSQL in the second."""

from __future__ import annotations

import json
import secrets
import urllib.error
import urllib.request

import pytest
from django.conf import settings
from django.test import Client

from arena.models import ProductScore
from flags.forms import FlagForm
from flags.services import flag_submit
from stories.models import Cell
from stories.values import Verdict
from tests.infra.services import LiveServer, database_url, redis_server, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def two_servers(seeded_arena):
    """Two gunicorn processes on the test database and one real Redis (REDIS_URL: the page cache
    and throttles); no broker, so the recompute runs in the process that made the change."""
    with redis_server() as redis:
        env = {
            "DATABASE_URL": database_url(),
            "CONN_MAX_AGE": "0",  # the test database is flushed under them afterwards
            "REDIS_URL": redis.url,
            "CELERY_BROKER_URL": None,
            "SECRET_KEY": settings.SECRET_KEY,
            "PAGE_CACHE": "1",
        }
        servers = [
            LiveServer(env, server="gunicorn", workers=1, threads=2, ready_path="/healthz")
            for _ in range(2)
        ]
        try:
            for server in servers:
                server.start(timeout=60)
            yield servers
        finally:
            for server in servers:
                server.close()


def fetch(base: str, path: str, **headers: str) -> tuple[int, dict[str, str], str]:
    # one site name for both, as behind a load balancer (the host is part of a page's key)
    request = urllib.request.Request(base + path, headers={"Host": "localhost", **headers})
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as exc:  # a 304 is an "error" to urllib
        return exc.code, dict(exc.headers), exc.read().decode()


def uphold(base: str, moderator, flag_id: int, body: dict) -> int:
    client = Client()
    client.force_login(moderator)  # a session in the shared database
    token = secrets.token_hex(16)  # 32 characters of the CSRF alphabet
    request = urllib.request.Request(
        f"{base}/api/flags/{flag_id}/uphold/",
        data=json.dumps(body).encode(),
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Cookie": f"sessionid={client.cookies['sessionid'].value}; csrftoken={token}",
            "X-CSRFToken": token,
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        raise AssertionError(f"uphold answered {exc.code}: {exc.read()[:300]!r}") from exc


def test_an_uphold_on_one_process_shows_on_both(two_servers, seeded_arena, moderator):
    a, b = (server.url for server in two_servers)
    cell = (
        Cell.objects.select_related("product", "story")
        .filter(story__arena=seeded_arena, verdict=Verdict.FULL, quality__gte=8)
        .order_by("pk")
        .first()
    )
    arena_url = seeded_arena.get_absolute_url()
    api_url = f"/api/arenas/{seeded_arena.slug}/"
    cell_url = f"/cells/{cell.pk}/"
    before = {}
    for base in (a, b):  # both warm: rendered once, then served from the shared cache
        for path in (arena_url, api_url, cell_url):
            status, headers, body = fetch(base, path)
            assert status == 200 and "public" in headers["Cache-Control"]
            assert "Set-Cookie" not in headers
            before[base, path] = headers["ETag"], body
    assert before[a, api_url] == before[b, api_url]  # the same version, the same page
    pa_before = ProductScore.objects.get(product=cell.product).pa_score

    flag = flag_submit(
        cell=cell,
        form=FlagForm(
            {"reason": "wrong_verdict", "explanation": "The docs say this is not supported."}
        ),
        client="page-cache-test",
    )
    assert uphold(a, moderator, flag.pk, {"verdict": "none", "note": "Not supported."}) == 200

    pa_after = ProductScore.objects.get(product=cell.product).pa_score
    assert pa_after < pa_before  # the recompute ran in process A
    assert "Not supported." in fetch(a, cell_url)[2]  # at once where the change was made
    # B reads the new version once the one it remembers is a second old
    wait_for(lambda: "Not supported." in fetch(b, cell_url)[2], 10, what="B's new cell page")
    for base in (b, a):
        status, _, cell_page = fetch(base, cell_url)
        assert status == 200 and "none" in cell_page and "Not supported." in cell_page
        status, _, api = fetch(base, api_url)
        row = next(
            r for r in json.loads(api)["leaderboard"] if r["product"]["slug"] == cell.product.slug
        )
        assert row["pa_score"] == pa_after, base
        for path in (arena_url, api_url, cell_url):
            old_etag = before[base, path][0]
            status, headers, _ = fetch(base, path, **{"If-None-Match": old_etag})
            assert status == 200 and headers["ETag"] != old_etag, (base, path)
            status, _, _ = fetch(base, path, **{"If-None-Match": headers["ETag"]})
            assert status == 304, (base, path)
