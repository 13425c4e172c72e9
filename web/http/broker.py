"""What the site asks of the broker's Redis itself, beside the queue: whether its memory policy can
evict the queue, and when the periodic sweep last ran (a heartbeat the sweep writes there).

A queued task is a key like any other: a Redis whose ``maxmemory-policy`` evicts (``allkeys-lru``,
``volatile-*``...) drops the queue and kombu's bindings once it is full, and nothing says so. The
broker's Redis must be ``noeviction`` (a separate instance from the cache's ``allkeys-lru`` one:
two databases of one Redis share its memory and its policy). The worker logs an error at start-up
and /readyz warns when it is not (web.http.health).

The heartbeat lives in the broker's Redis, not the cache: a cache evicts, and a missing heartbeat
would read as a dead beat.
"""

from __future__ import annotations

import logging
import time
from urllib.parse import urlsplit

import redis
from django.conf import settings

SAFE_POLICY = "noeviction"
SWEEP_KEY = "arena:beat:last_sweep"  # unix time at which the stale sweep last started
TIMEOUT = 0.5  # seconds, connecting included


def is_redis(url: str) -> bool:
    return urlsplit(url).scheme in ("redis", "rediss", "unix")


def client() -> redis.Redis:
    """A short-lived client of the broker's Redis (``CELERY_BROKER_URL``), short timeouts."""
    return redis.Redis.from_url(
        settings.CELERY_BROKER_URL, socket_connect_timeout=TIMEOUT, socket_timeout=TIMEOUT
    )


def eviction_problem() -> tuple[int, str] | None:
    """None when the broker's Redis keeps every key (``noeviction``); else a log level and what is
    wrong, in one line: an evicting policy (ERROR), or a policy that could not be read (WARNING: a
    managed Redis may refuse CONFIG). Raises ``redis.RedisError`` when the broker does not answer."""
    with client() as conn:
        try:
            found = conn.config_get("maxmemory-policy")
        except redis.ResponseError as exc:  # CONFIG renamed or refused
            return logging.WARNING, f"maxmemory-policy could not be checked ({exc})"
    policy = found.get("maxmemory-policy") or found.get(b"maxmemory-policy")
    policy = policy.decode() if isinstance(policy, bytes) else policy
    if policy == SAFE_POLICY:
        return None
    return logging.ERROR, f"maxmemory-policy is {policy}: it can evict queued tasks"


def record_sweep() -> None:
    """The sweep has started now (called by the worker that runs it; a failure is the caller's)."""
    with client() as conn:
        conn.set(SWEEP_KEY, f"{time.time():.3f}")


def seconds_since_sweep() -> float | None:
    """How long ago the sweep last started; None when no sweep was ever recorded."""
    with client() as conn:
        value = conn.get(SWEEP_KEY)
    if value is None:
        return None
    return max(0.0, time.time() - float(value))
