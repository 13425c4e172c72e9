"""``/metrics`` (Prometheus), only with ``Authorization: Bearer <METRICS_TOKEN>``: the processes'
counters (``web.http.observability``) and what each scrape reads from the database and the broker."""

import hmac
import logging
import os
from collections.abc import Iterator
from datetime import datetime

import redis
from celery import current_app as celery_app
from django.conf import settings
from django.db import DatabaseError
from django.http import Http404, HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.http import require_safe
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from arena.selectors.leaderboard import oldest_stale_scores
from flags.selectors import notice_counts, queue_health
from web.http import broker

log = logging.getLogger(__name__)

# kombu's Redis transport keeps a queue's messages of priority p > 0 in a list of their own
PRIORITY_SEPARATOR = "\x06\x16"
PRIORITY_STEPS = (0, 3, 6, 9)


def _age(since: datetime | None) -> float:
    return 0.0 if since is None else max(0.0, (timezone.now() - since).total_seconds())


def _queue_names() -> list[str]:
    names = {celery_app.conf.task_default_queue}
    names.update(q.name for q in celery_app.conf.task_queues or ())
    return sorted(names)


class ScrapeCollector(Collector):
    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily("arena_database_up", "1 when the database answered the scrape")
        try:
            figures = list(self._database())
        except DatabaseError as exc:  # the processes' counters still answer
            log.warning("metrics: the database did not answer: %s", exc)
            figures = []
        up.add_metric([], 1 if figures else 0)
        yield up
        yield from figures
        if settings.CELERY_BROKER_URL:
            yield from self._broker()

    def _database(self) -> Iterator[Metric]:
        health = queue_health()
        pending, oldest = health.pending, health.oldest
        yield GaugeMetricFamily(
            "arena_flags_pending", "Review items waiting for a moderator", pending
        )
        yield GaugeMetricFamily(
            "arena_flags_oldest_pending_seconds",
            "Age of the oldest review item waiting for a moderator (0: none waits)",
            _age(oldest),
        )
        notices = GaugeMetricFamily(
            "arena_notices", "Mail to send or sent, by state", labels=["state"]
        )
        counts, retrying = notice_counts()
        for state, n in sorted(counts.items()):
            notices.add_metric([state], n)
        yield notices
        yield GaugeMetricFamily(
            "arena_notices_retrying",
            "Mail still pending after a failed attempt (given up at NOTICE_MAX_ATTEMPTS: failed)",
            retrying,
        )
        yield GaugeMetricFamily(
            "arena_recompute_lag_seconds",
            "How long the longest-waiting arena's stored scores have missed a change (0: none)",
            _age(oldest_stale_scores()),
        )

    def _broker(self) -> Iterator[Metric]:
        up = GaugeMetricFamily("arena_celery_broker_up", "1 when the broker's Redis answered")
        try:
            with broker.client() as client:
                depth = GaugeMetricFamily(
                    "arena_celery_queue_length", "Tasks waiting in a Celery queue", labels=["queue"]
                )
                for name in _queue_names():
                    keys = [name] + [f"{name}{PRIORITY_SEPARATOR}{p}" for p in PRIORITY_STEPS[1:]]
                    depth.add_metric([name], sum(int(client.llen(key)) for key in keys))
                failures = CounterMetricFamily(
                    "arena_celery_task_failures",
                    "Celery tasks that failed (raised), by task, over every worker",
                    labels=["task"],
                )
                for task, n in sorted(client.hgetall(broker.FAILURES_KEY).items()):
                    name = task.decode() if isinstance(task, bytes) else task
                    failures.add_metric([name], int(n))
        except redis.RedisError as exc:
            log.warning("metrics: the broker did not answer: %s", exc)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield from (up, depth, failures)


def exposition() -> bytes:
    """Every gunicorn worker's counters with PROMETHEUS_MULTIPROC_DIR, and the figures read now."""
    scraped = CollectorRegistry()
    scraped.register(ScrapeCollector())
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.MultiProcessCollector(scraped)
        return generate_latest(scraped)
    return generate_latest(REGISTRY) + generate_latest(scraped)


def _authorized(request: HttpRequest) -> bool:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        token.strip().encode(), settings.METRICS_TOKEN.encode()
    )


@require_safe
def metrics(request: HttpRequest) -> HttpResponse:
    if not settings.METRICS_TOKEN:
        raise Http404("no such page")
    if not _authorized(request):
        response = HttpResponse(
            "Metrics need the header Authorization: Bearer <METRICS_TOKEN>.\n",
            status=401,
            content_type="text/plain; charset=utf-8",
        )
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
    else:
        response = HttpResponse(exposition(), content_type=CONTENT_TYPE_LATEST)
    response["Cache-Control"] = "no-store"
    return response
