"""The Celery app: workers and one beat in production (``worker -B`` in development); in-process
without CELERY_BROKER_URL. Its signals carry the request id, count failures for /metrics, check
the broker's eviction policy and record the sweep's heartbeat for /readyz."""

from __future__ import annotations

import contextlib
import logging
import os
import time
from typing import Any

import redis
import sentry_sdk
from celery import Celery, signals
from django.conf import settings
from kombu.transport import redis as kombu_redis

from arena.task_names import SWEEP_TASK
from web.http import broker, requestid

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("arena")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# kombu 5.7 crashes the worker restoring unacknowledged messages over a connection already gone (a
# Redis restart); they come back after the visibility timeout anyway, and the sweep finds the rest.
kombu_redis.QoS.restore_at_shutdown = False

log = logging.getLogger("arena.tasks")

HEADER = "request_id"  # the message header, read back as ``task.request.request_id``


@signals.before_task_publish.connect
def _send_request_id(headers: dict[str, Any] | None = None, **_: Any) -> None:
    rid = requestid.CURRENT.get()
    if rid and headers is not None:
        headers[HEADER] = rid


@signals.task_prerun.connect
def _take_request_id(task: Any, **_: Any) -> None:
    # the id the message brought; an in-process task (no broker) keeps its request's own
    rid = requestid.sane(getattr(task.request, HEADER, None)) or requestid.CURRENT.get()
    task.request.arena_token = requestid.CURRENT.set(rid)
    if rid:  # (the task's error report names the request; a no-op without SENTRY_DSN)
        sentry_sdk.set_tag("request_id", rid)
    task.request.arena_started = time.perf_counter()
    log.info("task %s started", task.name, extra={"task": task.name})
    if task.name == SWEEP_TASK and settings.CELERY_BROKER_URL:
        try:
            broker.record_sweep()
        except redis.RedisError as exc:  # /readyz will call the beat late; the sweep runs on
            log.warning("the sweep's heartbeat was not recorded: %s", exc)


@signals.worker_ready.connect
@signals.beat_init.connect
def _check_broker_policy(**_: Any) -> None:
    # an error, not a refusal to start: a worker that refuses leaves the queue growing
    if not broker.is_redis(settings.CELERY_BROKER_URL):
        return
    try:
        problem = broker.eviction_problem()
    except redis.RedisError as exc:
        problem = logging.WARNING, f"maxmemory-policy could not be checked ({exc})"
    if problem is not None:
        log.log(
            problem[0],
            "the broker's %s; it must be noeviction, a Redis of its own beside the cache's "
            "(docs/operations.md, Caching)",
            problem[1],
        )


@signals.task_postrun.connect
def _drop_request_id(task: Any, state: str | None = None, **_: Any) -> None:
    started = getattr(task.request, "arena_started", None)
    ms = round((time.perf_counter() - started) * 1000, 1) if started else None
    log.info(
        "task %s finished: %s in %sms",
        task.name,
        state,
        ms,
        extra={"task": task.name, "state": state, "duration_ms": ms},
    )
    sentry_sdk.get_isolation_scope().remove_tag("request_id")
    token = getattr(task.request, "arena_token", None)
    if token is not None:
        with contextlib.suppress(ValueError):  # (set in another context: nothing to restore)
            requestid.CURRENT.reset(token)


@signals.task_failure.connect
def _count_failure(sender: Any, **_: Any) -> None:
    if not settings.CELERY_BROKER_URL:
        return  # (in-process tasks: the failure is the request's own error)
    try:
        with broker.client() as client:
            client.hincrby(broker.FAILURES_KEY, sender.name, 1)
    except redis.RedisError as exc:  # the count is lost, the task's own retry/sweep is not
        log.warning("task failure not counted: %s", exc)
