"""The broker's Redis: whether it may evict queued tasks, and the stale sweep's heartbeat."""

import logging
import time
from urllib.parse import urlsplit

import redis
from django.conf import settings

SAFE_POLICY = "noeviction"
SWEEP_KEY = "arena:beat:last_sweep"  # unix time at which the stale sweep last started
FAILURES_KEY = "arena:metrics:task_failures"  # a hash task name -> failures, from every worker
TIMEOUT = 0.5  # seconds, connecting included


def is_redis(url: str) -> bool:
    return urlsplit(url).scheme in ("redis", "rediss", "unix")


def client() -> redis.Redis:
    return redis.Redis.from_url(
        settings.CELERY_BROKER_URL, socket_connect_timeout=TIMEOUT, socket_timeout=TIMEOUT
    )


def eviction_problem() -> tuple[int, str] | None:
    """None under ``noeviction``; else a log level and what is wrong."""
    with client() as conn:
        try:
            policy = conn.config_get("maxmemory-policy").get("maxmemory-policy")
        except redis.ResponseError as exc:  # CONFIG renamed or refused
            return logging.WARNING, f"maxmemory-policy could not be checked ({exc})"
    if policy == SAFE_POLICY:
        return None
    return logging.ERROR, f"maxmemory-policy is {policy}: it can evict queued tasks"


def record_sweep() -> None:
    with client() as conn:
        conn.set(SWEEP_KEY, f"{time.time():.3f}")


def seconds_since_sweep() -> float | None:
    with client() as conn:
        value = conn.get(SWEEP_KEY)
    return None if value is None else max(0.0, time.time() - float(value))
