"""The flag limits hold under real concurrency: simultaneous POST /api/flags/ against gunicorn with
several worker processes (3 × 4 threads), on the same database as this test process (the SQLite
test file in the first pass, PostgreSQL when DATABASE_URL is set).

Every burst opens one connection per request (keep-alive off), connects them all, then releases
them together through a barrier. What a caller sees (status codes, bodies, Retry-After) and what is
stored (counted here through the ORM after the burst) must both match the rules:

* at most FLAG_RATE (10/hour here) flags per client: 40 at once → 10 × 201, 30 × 429;
* one pending flag per client per cell: 10 at once on one cell → 1 × 201, 9 × 400;
* several clients at once on one cell → one pending review item holding one flag per client.

Each client is a distinct loopback source address (127.0.0.N), which gunicorn reports as
REMOTE_ADDR; each test uses its own addresses so the per-worker API throttles do not carry over.
"""

from __future__ import annotations

import io
import re
from collections import Counter

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection

from flags.models import Flag, ReviewItem, Status
from stories.models import Cell
from tests.conftest import seed_paths
from tests.infra.services import (
    HttpRequest,
    HttpResult,
    LiveServer,
    database_url,
    loopback_address,
    loopback_aliases_work,
    simultaneous_requests,
    wait_for,
)
from web.http.clients import client_hash

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

WORKERS, THREADS = 3, 4
LIMIT = 10
EXPLANATION = "The linked documentation contradicts this verdict; please look again."
ALREADY_FLAGGED = re.compile(r"already flagged", re.IGNORECASE)


@pytest.fixture(scope="module")
def web(django_db_setup):
    """gunicorn (3 workers × 4 threads) on the test database, for the whole module.

    It keeps no database connection between requests (CONN_MAX_AGE=0), so each test can seed and
    flush the database under it.
    """
    if not loopback_aliases_work():
        pytest.skip("cannot bind client sockets to 127.0.0.N on this machine")
    env = {
        "DATABASE_URL": database_url(),
        "CONN_MAX_AGE": "0",
        "FLAG_RATE": f"{LIMIT}/hour",
        "SECRET_KEY": settings.SECRET_KEY,  # the same client keys as client_hash() here
        "TRUSTED_PROXIES": "0",  # REMOTE_ADDR is the client (no proxy in front)
        "API_ANON_RATE": "100000/minute",  # only the flag limit under test may answer 429
        "CELERY_BROKER_URL": None,
        "REDIS_URL": None,
    }
    server = LiveServer(
        env, server="gunicorn", workers=WORKERS, threads=THREADS, ready_path="/api/"
    )
    server.start(timeout=60)
    print(
        f"\ngunicorn {WORKERS} workers × {THREADS} threads on {connection.vendor} "
        f"(worker pids {sorted(server.worker_pids())})"
    )
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def cells(transactional_db) -> list[Cell]:
    """The seed arena, committed, so that the server processes see it."""
    call_command("import_arena_pages", *seed_paths(), stdout=io.StringIO())
    return list(Cell.objects.order_by("pk"))


def post_flag(cell_id: int, source: str) -> HttpRequest:
    # JSON only and no Origin / Sec-Fetch-Site header: a same-site API client.
    return HttpRequest(
        "POST",
        "/api/flags/",
        json_body={"cell": cell_id, "reason": "other", "explanation": EXPLANATION},
        source=source,
    )


def burst(web: LiveServer, requests: list[HttpRequest]) -> list[HttpResult]:
    mark = len(web.log)
    results = simultaneous_requests(web.url, requests, timeout=30)

    def served_by() -> Counter[str]:
        return Counter(re.findall(r'"POST /api/flags/ HTTP/1.1" \d+ \S+ <(\d+)>', web.log[mark:]))

    wait_for(lambda: served_by().total() >= len(requests), 10, what="the access log lines")
    print(
        f"  sent {len(requests)} at once; statuses "
        f"{dict(sorted(Counter(r.status for r in results).items(), key=str))}; "
        f"served by worker pids {dict(served_by())}"
    )
    return results


def explain(web: LiveServer, results: list[HttpResult], stored: int) -> str:
    """What to show when an assertion fails: the figures, odd answers, the server log's tail."""
    statuses = dict(Counter(r.status for r in results))
    odd = [
        f"{r.request.source} {r.status} {r.error or r.text[:200]}"
        for r in results
        if r.status not in (201, 400, 429)
    ]
    return "\n".join(
        [
            f"sent {len(results)}, statuses {statuses}, stored {stored}",
            *odd[:10],
            "--- server log (tail) ---",
            web.current_log[-2000:],
        ]
    )


def test_rate_limit_holds_for_simultaneous_flags(web, cells):
    source = loopback_address(10)
    targets = cells[:40]
    assert len(targets) == 40
    print(f"\n[rate limit] {len(targets)} simultaneous flags from {source}, limit {LIMIT}/hour")
    results = burst(web, [post_flag(c.pk, source) for c in targets])

    statuses = Counter(r.status for r in results)
    stored = Flag.objects.filter(client_hash=client_hash(source))
    print(f"  stored {stored.count()} flags (expected {LIMIT})")
    assert statuses == {201: LIMIT, 429: len(targets) - LIMIT}, explain(
        web, results, stored.count()
    )
    for r in results:
        if r.status == 429:
            assert 1 <= int(r.headers["retry-after"]) <= 3600, r.headers
    created = {r.json()["id"] for r in results if r.status == 201}
    assert set(stored.values_list("pk", flat=True)) == created
    assert Flag.objects.count() == LIMIT
    # each stored flag sits in its own cell's pending review item
    assert ReviewItem.objects.filter(status=Status.PENDING).count() == LIMIT


def test_one_pending_flag_per_client_per_cell_holds(web, cells):
    source = loopback_address(11)
    cell = cells[0]
    print(f"\n[one per cell] 10 simultaneous flags on cell {cell.pk} from {source}")
    results = burst(web, [post_flag(cell.pk, source) for _ in range(10)])

    statuses = Counter(r.status for r in results)
    stored = Flag.objects.filter(cell=cell, client_hash=client_hash(source))
    print(f"  stored {stored.count()} flags (expected 1)")
    assert statuses == {201: 1, 400: 9}, explain(web, results, stored.count())
    for r in results:
        if r.status == 400:
            assert ALREADY_FLAGGED.search(str(r.json().get("cell"))), r.text
    assert stored.count() == 1 == Flag.objects.count()
    assert ReviewItem.objects.filter(cell=cell, status=Status.PENDING).count() == 1


def test_many_clients_on_one_cell_share_one_review_item(web, cells):
    sources = [loopback_address(n) for n in range(20, 28)]
    cell = cells[1]
    print(
        f"\n[many clients] {len(sources)} clients × 2 simultaneous flags on cell {cell.pk} "
        f"from {sources[0]}…{sources[-1]}"
    )
    results = burst(web, [post_flag(cell.pk, s) for s in sources for _ in range(2)])

    items = list(ReviewItem.objects.filter(cell=cell))
    flags = list(Flag.objects.filter(cell=cell))
    print(f"  stored {len(flags)} flags in {len(items)} review item(s) (expected 8 in 1)")
    statuses = Counter(r.status for r in results)
    assert statuses == {201: len(sources), 400: len(sources)}, explain(web, results, len(flags))
    for source in sources:  # each client: one accepted, one refused as already flagged
        mine = sorted((r for r in results if r.request.source == source), key=lambda r: r.status)
        assert [r.status for r in mine] == [201, 400], (source, [r.text for r in mine])
        assert ALREADY_FLAGGED.search(str(mine[1].json().get("cell"))), mine[1].text
    assert len(items) == 1 and items[0].status == Status.PENDING
    assert {r.json()["item"] for r in results if r.status == 201} == {items[0].pk}
    assert all(f.item_id == items[0].pk for f in flags)
    assert sorted(f.client_hash for f in flags) == sorted(client_hash(s) for s in sources)
