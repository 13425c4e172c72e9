"""The first requests for a page after a content change are served by one render, not one per
waiting client (web/http/pagecache.py): the first takes the page's lock (SET NX with a
TTL in Redis, an atomic add in this process's memory), the others wait for the page it stores;
the lock outlives the slowest render, so a page is never rendered twice at once: a lock whose
holder never lets go (a renderer killed by gunicorn's timeout) holds the others at most
``WAIT_SECONDS``, then each is told to retry (503, ``Retry-After``) until the lock expires."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from django.core.cache import caches
from django.db import connection
from django.test import Client, RequestFactory

from arena.models import Arena
from tests.infra.services import redis_server
from web.http import pagecache, pagekeys

pytestmark = pytest.mark.django_db

ARENA = "/arenas/durable-execution-engines/"
CLIENTS = 8


@pytest.fixture(scope="module")
def redis():
    with redis_server() as server:
        yield server


@pytest.fixture(params=["redis", "memory"])
def pages_cache(request, settings) -> Iterator[str]:
    """The pages cache on a real redis-server (as with REDIS_URL) or in this process's memory
    (without it), empty."""
    settings.PAGE_MISS_RATE = ""
    if request.param == "redis":
        server = request.getfixturevalue("redis")
        default = {"BACKEND": "web.http.cache.ResilientRedisCache", "LOCATION": server.url}
        settings.CACHES = {"default": default, "pages": {**default, "KEY_PREFIX": "pages"}}
    caches["pages"].clear()
    pagecache.recent_pages().clear()
    yield request.param
    caches["pages"].clear()
    pagecache.recent_pages().clear()


@pytest.fixture
def renders() -> Iterator[list[str]]:
    """The paths the page cache rendered (its ``page_rendered`` signal), in order."""
    seen: list[str] = []
    lock = threading.Lock()

    def rendered(sender, key, path, **kwargs):
        with lock:
            seen.append(path)

    pagecache.page_rendered.connect(rendered)
    yield seen
    pagecache.page_rendered.disconnect(rendered)


def _all_at_once(path: str, clients: int = CLIENTS) -> list[tuple[int, bytes, str]]:
    """``clients`` threads ask for ``path`` at the same moment; their status, body and ETag."""
    barrier = threading.Barrier(clients)
    answers: list[tuple[int, bytes, str]] = []
    lock = threading.Lock()

    def fetch():
        try:
            barrier.wait()
            response = Client().get(path)
            with lock:
                answers.append((response.status_code, response.content, response["ETag"]))
        finally:
            connection.close()

    threads = [threading.Thread(target=fetch) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def test_simultaneous_first_requests_for_the_arena_page_render_it_once(
    seeded_arena, pages_cache, renders
):
    answers = _all_at_once(ARENA)
    assert len(answers) == CLIENTS
    assert {status for status, _, _ in answers} == {200}
    assert len({body for _, body, _ in answers}) == 1 and b'id="leaderboard"' in answers[0][1]
    assert renders == [ARENA]
    # served from the cache now: no render
    assert _all_at_once(ARENA, clients=3)[0][1] == answers[0][1] and renders == [ARENA]
    # after a purge, the next crowd gets one new render too
    caches["pages"].clear()
    pagecache.recent_pages().clear()
    again = _all_at_once(ARENA)
    assert {status for status, _, _ in again} == {200}
    assert len({body for _, body, _ in again}) == 1
    assert renders == [ARENA, ARENA]


def test_without_the_page_cache_every_request_renders(seeded_arena, settings, renders):
    settings.PAGE_CACHE = False
    client = Client()
    for _ in range(3):
        assert client.get(ARENA).status_code == 200
    assert renders == [ARENA] * 3


def test_a_lock_nobody_releases_holds_a_request_a_bounded_time_then_asks_it_to_retry(
    seeded_arena, pages_cache, renders, monkeypatch, settings
):
    """A renderer that took the lock and was killed: a request waits at most WAIT_SECONDS (short
    here) and is told to retry, rendering nothing while the lock lasts; once it has expired the
    next request renders the page and stores it."""
    monkeypatch.setattr(pagecache, "WAIT_SECONDS", 0.5)
    assert settings.PAGE_RENDER_LOCK_SECONDS == 35  # gunicorn's 30 s timeout, and a margin
    request = RequestFactory().get(ARENA)
    version = f"{seeded_arena.pk}-{Arena.objects.get(pk=seeded_arena.pk).content_version}"
    page_id = pagekeys.PageIdentity.of(request, version)
    lock = f"{page_id.key}:lock"
    assert caches["pages"].add(lock, 1, timeout=30)
    answers: list = []
    waiting = threading.Thread(target=lambda: answers.append(Client().get(ARENA)))
    waiting.start()
    waiting.join(timeout=60)
    assert not waiting.is_alive(), "the request is still waiting for a lock nobody releases"
    (response,) = answers
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert response["Cache-Control"] == "no-store"
    assert b"being prepared: try again in a few seconds" in response.content
    assert renders == [] and pagecache.stored(page_id.key) is None
    caches["pages"].delete(lock)  # (its expiry)
    again = Client().get(ARENA)
    assert again.status_code == 200 and b'id="leaderboard"' in again.content
    assert renders == [ARENA] and pagecache.stored(page_id.key) is not None
