"""What /readyz warns of without failing: a broker whose Redis can evict queued tasks, a stale sweep
that has not run for three intervals, an arena stale past its budget; with a real redis-server as
the broker. ``?strict=1`` turns the warnings into a 503."""

from __future__ import annotations

import re
import time
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from arena.models import Arena
from tests.factories import ArenaFactory
from tests.infra.services import RedisServer, redis_server
from web.http import broker

pytestmark = [pytest.mark.integration, pytest.mark.django_db]


@pytest.fixture
def redis_broker(settings):
    """A real redis-server as the broker (``noeviction``, Redis's default), the sweep just run."""
    with redis_server() as server:
        settings.CELERY_BROKER_URL = server.url
        broker.record_sweep()
        yield server


def readyz(strict: bool = False) -> tuple[int, dict]:
    response = Client().get("/readyz?strict=1" if strict else "/readyz")
    return response.status_code, response.json()


def test_a_broker_that_keeps_every_key_is_ok(redis_broker):
    assert redis_broker.client().config_get("maxmemory-policy") == {
        "maxmemory-policy": "noeviction"
    }
    status, body = readyz(strict=True)
    assert status == 200 and body["checks"]["broker_policy"] == "ok"
    assert "warnings" not in body


def test_an_evicting_broker_is_a_warning_and_strict_fails(redis_broker):
    redis_broker.client().config_set("maxmemory-policy", "allkeys-lru")
    status, body = readyz()
    assert status == 200 and body["status"] == "ok"
    assert body["checks"]["broker_policy"] == (
        "warning: maxmemory-policy is allkeys-lru: it can evict queued tasks"
    )
    assert body["warnings"] == ["broker_policy"] and "failing" not in body
    status, body = readyz(strict=True)
    assert status == 503 and body["status"] == "unavailable"
    assert body["failing"] == ["broker_policy"]


class RedisWithoutConfig(RedisServer):
    """A Redis that refuses CONFIG, as managed services do."""

    def command(self) -> list[str]:
        return [*super().command(), "--rename-command", "CONFIG", ""]


def test_a_broker_refusing_config_is_said_to_be_unchecked(settings):
    server = RedisWithoutConfig()
    try:
        server.start()
        settings.CELERY_BROKER_URL = server.url
        broker.record_sweep()
        status, body = readyz()
    finally:
        server.close()
    assert status == 200 and body["warnings"] == ["broker_policy"]
    assert body["checks"]["broker_policy"].startswith(
        "warning: maxmemory-policy could not be checked (unknown command"
    )


def test_a_beat_late_by_three_sweeps_is_reported(redis_broker, settings):
    interval = settings.CELERY_BEAT_SCHEDULE["recompute-stale-arenas"]["schedule"]
    assert interval == timedelta(seconds=30)  # STALE_SWEEP_SECONDS' default
    # the last sweep started 2.5 intervals ago: still on time
    redis_broker.client().set(broker.SWEEP_KEY, time.time() - 75)
    assert readyz()[1]["checks"]["beat"] == "ok"
    redis_broker.client().set(broker.SWEEP_KEY, time.time() - 95)
    status, body = readyz()
    assert status == 200 and body["warnings"] == ["beat"]
    # a second or two may pass on a busy machine between the write and the check
    assert re.fullmatch(
        r"warning: the stale sweep last ran 9[5-9]s ago, more than 90s", body["checks"]["beat"]
    )
    redis_broker.client().delete(broker.SWEEP_KEY)  # (a broker restarted, a beat never run)
    assert readyz()[1]["checks"]["beat"] == (
        "warning: no stale sweep recorded yet (beat or worker not running?)"
    )
    broker.record_sweep()
    assert readyz(strict=True)[0] == 200


def test_without_a_broker_there_is_no_beat_to_report(settings):
    settings.CELERY_BROKER_URL = ""
    status, body = readyz(strict=True)
    assert status == 200 and set(body["checks"]) == {"database", "arenas"}


def test_an_arena_stale_past_its_budget_is_reported(settings):
    settings.CELERY_BROKER_URL = ""
    settings.RECOMPUTE_STALE_BUDGET_SECONDS = 600
    late = ArenaFactory.create(slug="late-arena")
    recent = ArenaFactory.create(slug="recent-arena")
    now = timezone.now()
    Arena.objects.filter(pk=recent.pk).update(scores_stale_since=now - timedelta(seconds=500))
    assert readyz()[1]["checks"]["arenas"] == "ok"
    Arena.objects.filter(pk=late.pk).update(scores_stale_since=now - timedelta(seconds=700))
    status, body = readyz()
    assert status == 200 and body["warnings"] == ["arenas"]
    assert body["checks"]["arenas"] == "warning: stale for more than 600s: late-arena"
    assert readyz(strict=True)[0] == 503
    Arena.objects.filter(pk=late.pk).update(scores_stale_since=None)  # (recomputed)
    assert readyz(strict=True)[0] == 200
