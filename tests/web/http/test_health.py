"""/healthz, /readyz, and the Redis cache under an outage, with a real redis-server that is started
and stopped."""

from __future__ import annotations

import pytest
from django.core.cache import cache, caches
from django.test import Client

from tests.infra.listener import CountingListener
from tests.infra.services import free_port, redis_server, wait_for
from web.http import broker
from web.http.cache import ResilientRedisCache
from web.http.clients import AnonRateThrottle

pytestmark = pytest.mark.integration


@pytest.fixture
def redis():
    with redis_server() as server:
        yield server


def redis_cache_settings(url: str, backoff: float = 0.2) -> dict:
    default = {
        "BACKEND": "web.http.cache.ResilientRedisCache",
        "LOCATION": url,
        "OPTIONS": {
            "socket_connect_timeout": 0.5,
            "socket_timeout": 0.5,
            "outage_backoff": backoff,
        },
    }
    return {"default": default, "pages": {**default, "KEY_PREFIX": "pages"}}


@pytest.fixture
def redis_cache(redis, settings):
    """The default cache on the real redis-server (as with REDIS_URL)."""
    settings.CACHES = redis_cache_settings(redis.url.replace("/0", "/1"))
    yield caches["default"]


# --------------------------------------------------------------------------- /healthz


def test_healthz_answers_without_io():
    # no django_db mark: any database access would fail the test
    client = Client()
    response = client.get("/healthz")
    assert response.status_code == 200 and response.json() == {"status": "ok"}
    assert response["Cache-Control"] == "no-store"
    assert not response.cookies and "Cookie" not in response.get("Vary", "")
    head = client.head("/healthz")
    assert head.status_code == 200 and head["Cache-Control"] == "no-store"
    assert client.post("/healthz").status_code == 405


def test_healthz_answers_with_redis_down(settings):
    settings.CACHES = redis_cache_settings(f"redis://127.0.0.1:{free_port()}/0")
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{free_port()}/0"
    assert Client().get("/healthz").status_code == 200


# --------------------------------------------------------------------------- /readyz


@pytest.mark.django_db
def test_readyz_checks_the_database_only_when_nothing_else_is_configured(settings):
    settings.CELERY_BROKER_URL = ""
    response = Client().get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "checks": {"database": "ok", "arenas": "ok"}}
    assert response["Cache-Control"] == "no-store" and not response.cookies
    assert Client().head("/readyz").status_code == 200


@pytest.mark.django_db
def test_readyz_follows_redis_and_the_broker(redis, redis_cache, settings):
    settings.CELERY_BROKER_URL = redis.url
    broker.record_sweep()  # (as the beat's sweep does)
    client = Client()
    up = client.get("/readyz")
    assert up.status_code == 200, up.content
    assert up.json() == {
        "status": "ok",
        "checks": {
            "database": "ok",
            "redis": "ok",
            "broker": "ok",
            "broker_policy": "ok",
            "beat": "ok",
            "arenas": "ok",
        },
    }

    redis.stop()
    with CountingListener(port=redis.port) as gone:  # where Redis was: drops every connection
        down = client.get("/readyz")
        tried = gone.settled_count()
    # one attempt for each check that reads Redis (the cache, the broker, its eviction policy,
    # the beat's last sweep), none retried: a dead Redis cannot hold the probe
    assert down.status_code == 503 and 1 <= tried <= 4
    body = down.json()
    assert body["status"] == "unavailable" and body["failing"] == ["broker", "redis"]
    assert body["checks"]["database"] == "ok"
    assert body["checks"]["redis"].startswith("error: ")
    assert body["checks"]["broker"].startswith("error: ")
    # what the broker would have told: said to be unknown, not failing twice
    assert body["checks"]["beat"] == "warning: not checked (ConnectionError)"
    assert body["warnings"] == ["beat", "broker_policy"]
    assert down["Cache-Control"] == "no-store"
    assert client.head("/readyz").status_code == 503

    redis.start()
    back = client.get("/readyz")  # PING ignores the cache's outage back-off
    assert back.status_code == 200, back.content


@pytest.mark.django_db
def indented(n: int) -> dict[str, str]:
    """An ``Accept`` asking for JSON indented by ``n``: another page of the API for the cache."""
    return {"Accept": f"application/json; indent={n}"}


@pytest.mark.django_db  # (the list's version is read before the view)
def test_health_checks_are_not_rate_limited(monkeypatch, settings):
    settings.CELERY_BROKER_URL = ""
    cache.clear()
    monkeypatch.setattr(AnonRateThrottle, "rate", "3/minute", raising=False)
    client = Client()
    # four answers the server renders (a cached one costs no more than a health check): four
    # formats, JSON indented four ways (a made-up parameter would be the cached answer)
    api = [client.get("/api/arenas/", headers=indented(n)).status_code for n in range(1, 5)]
    assert api == [200, 200, 200, 429]  # the API is throttled by client key...
    for _ in range(20):  # ...the health checks are not
        assert client.get("/healthz").status_code == 200
        assert client.get("/readyz").status_code == 200
    cache.clear()


# --------------------------------------------------------------------------- the cache


def test_cache_answers_misses_while_redis_is_down(redis, redis_cache):
    c = redis_cache
    assert isinstance(c, ResilientRedisCache)
    c.set("kept", 1)
    assert c.get("kept") == 1
    with pytest.raises(ValueError):  # a real miss, Redis up: Django's contract
        c.incr("absent")
    assert not c.is_down

    redis.stop()
    misses = {
        "get": lambda: c.get("kept"),
        "get default": lambda: c.get("kept", []),
        "get_or_set": lambda: c.get_or_set("kept", lambda: "computed", 10),
        "get_many": lambda: c.get_many(["kept", "other"]),
        "has_key": lambda: c.has_key("kept"),
        "add": lambda: c.add("new", 1),
        "set": lambda: c.set("kept", 2),
        "set_many": lambda: sorted(c.set_many({"a": 1, "b": 2})),
        "touch": lambda: c.touch("kept"),
        "delete": lambda: c.delete("kept"),
        "delete_many": lambda: c.delete_many(["a", "b"]),
        "clear": lambda: c.clear(),
    }
    expected = {
        "get": None,
        "get default": [],
        "get_or_set": "computed",
        "get_many": {},
        "has_key": False,
        "add": False,
        "set": None,
        "set_many": ["a", "b"],
        "touch": False,
        "delete": False,
        "delete_many": None,
        "clear": False,
    }
    got = {name: call() for name, call in misses.items()}
    assert got == expected
    for call in (lambda: c.incr("kept"), lambda: c.decr("kept"), lambda: c.incr_version("kept")):
        with pytest.raises(ValueError):
            call()
    assert c.is_down

    redis.start()

    def written_again() -> bool:  # a silent miss until the back-off (0.2 s here) runs out
        c.set("kept", 3)
        return c.get("kept") == 3

    wait_for(written_again, 10, what="the cache to write to Redis again")
    assert not c.is_down


def test_cache_failures_that_are_not_outages_propagate(redis_cache):
    with pytest.raises(Exception) as caught:
        redis_cache.set("bad", lambda: None)  # cannot be pickled: a bug, not an outage
    assert "pickle" in str(caught.value).lower() or "lambda" in str(caught.value)
    assert not redis_cache.is_down


def test_cache_back_off_spares_redis_during_an_outage(settings):
    """Where Redis was, a port that drops every connection: the first miss tries it, and
    during the back-off no call reaches the network at all."""
    with CountingListener() as gone:
        settings.CACHES = redis_cache_settings(gone.url(path="/1"), backoff=600)
        c = caches["default"]
        assert c.get("x", 0) == 0 and c.is_down
        tried = gone.settled_count()
        assert tried >= 1
        assert [c.get("x", 0) for _ in range(1000)] == [0] * 1000
        assert c.set_many({"a": 1}) == ["a"] and c.add("b", 1) is False
        assert gone.settled_count() == tried


@pytest.mark.django_db
def test_api_answers_with_redis_down_and_throttles_fail_open(redis, redis_cache, monkeypatch):
    monkeypatch.setattr(AnonRateThrottle, "rate", "3/minute", raising=False)
    client = Client()
    redis.stop()
    statuses = [client.get("/api/arenas/").status_code for _ in range(6)]
    assert statuses == [200] * 6  # no history can be kept: the DRF throttle fails open
    redis.start()
    wait_for(redis_cache.clear, 10, what="the cache to reach Redis again after its back-off")
    # (distinct formats: answers the server renders; a cached one is not counted)
    statuses = [client.get("/api/arenas/", headers=indented(n)).status_code for n in range(1, 5)]
    assert statuses == [200, 200, 200, 429]  # and counts again once Redis is back
