"""``/metrics`` (Prometheus, bearer ``METRICS_TOKEN``): process counters and database reads."""

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

from arena.selectors.leaderboard import given_up_count, oldest_stale_scores
from flags.selectors import notice_counts, queue_health
from web.http import broker

log = logging.getLogger(__name__)


def _age(since: datetime | None) -> float:
    return 0.0 if since is None else max(0.0, (timezone.now() - since).total_seconds())


class ScrapeCollector(Collector):
    def collect(self) -> Iterator[Metric]:
        try:
            figures = list(self._database())
        except DatabaseError as exc:  # the processes' counters still answer
            log.warning("metrics: the database did not answer: %s", exc)
            figures = []
        yield GaugeMetricFamily(
            "arena_database_up", "1 when the database answered the scrape", int(bool(figures))
        )
        yield from figures
        if settings.CELERY_BROKER_URL:
            yield from self._broker()

    def _database(self) -> Iterator[Metric]:
        health = queue_health()
        yield GaugeMetricFamily(
            "arena_flags_pending", "Review items waiting for a moderator", health.pending
        )
        yield GaugeMetricFamily(
            "arena_flags_oldest_pending_seconds",
            "Age of the oldest review item waiting for a moderator (0: none waits)",
            _age(health.oldest),
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
        yield GaugeMetricFamily(
            "arena_recompute_given_up",
            "Stale arenas whose change failed to recompute GIVE_UP_AFTER times: no longer swept",
            given_up_count(),
        )

    def _broker(self) -> Iterator[Metric]:
        depth = GaugeMetricFamily(
            "arena_celery_queue_length", "Tasks waiting in a Celery queue", labels=["queue"]
        )
        failures = CounterMetricFamily(
            "arena_celery_task_failures",
            "Celery tasks that failed (raised), by task, over every worker",
            labels=["task"],
        )
        try:
            with broker.client() as client:
                conf = celery_app.conf
                queues = {conf.task_default_queue, *(q.name for q in conf.task_queues or ())}
                for name in sorted(queues):  # (no task has a priority: one list per queue)
                    depth.add_metric([name], int(client.llen(name)))
                for task, n in sorted(client.hgetall(broker.FAILURES_KEY).items()):
                    failures.add_metric([task.decode()], int(n))
            answered = True
        except redis.RedisError as exc:
            log.warning("metrics: the broker did not answer: %s", exc)
            answered = False
        yield GaugeMetricFamily(
            "arena_celery_broker_up", "1 when the broker's Redis answered", int(answered)
        )
        if answered:
            yield from (depth, failures)


def exposition() -> bytes:
    """Every gunicorn worker's counters with PROMETHEUS_MULTIPROC_DIR, and the figures read now."""
    scraped = CollectorRegistry()
    scraped.register(ScrapeCollector())
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.MultiProcessCollector(scraped)
        return generate_latest(scraped)
    return generate_latest(REGISTRY) + generate_latest(scraped)


@require_safe
def metrics(request: HttpRequest) -> HttpResponse:
    if not settings.METRICS_TOKEN:
        raise Http404("no such page")
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(
        token.strip().encode(), settings.METRICS_TOKEN.encode()
    ):
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
