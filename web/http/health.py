"""/healthz (liveness) and /readyz (database, Redis, broker; a warning 503s only with ?strict=1)."""

import logging
from collections.abc import Callable
from datetime import timedelta
from typing import cast

from celery import current_app as celery_app
from django.conf import settings
from django.core.cache import caches
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

from arena.models import Arena
from web.http import broker
from web.http.cache import ResilientRedisCache

log = logging.getLogger(__name__)

BROKER_TIMEOUT = 1.0  # seconds for the broker check, connecting included
BEAT_MISSED_SWEEPS = 3  # the beat is late once this many sweep intervals passed without one
WARNING = "warning: "
SWEEP = "recompute-stale-arenas"  # the stale sweep's entry in the beat's schedule


@require_safe
@cache_control(no_store=True)
def healthz(request: HttpRequest) -> HttpResponse:
    return JsonResponse({"status": "ok"})


def check_database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def check_broker() -> None:
    with celery_app.connection_for_write(settings.CELERY_BROKER_URL) as conn:
        # one attempt, no retry sleeps; the transport options' socket timeouts bound it
        conn.ensure_connection(max_retries=0, timeout=BROKER_TIMEOUT)


def check_broker_policy() -> str | None:
    return (problem := broker.eviction_problem()) and problem[1]


def check_beat() -> str | None:
    if (since := broker.seconds_since_sweep()) is None:
        return "no stale sweep recorded yet (beat or worker not running?)"
    interval = cast(timedelta, settings.CELERY_BEAT_SCHEDULE[SWEEP]["schedule"]).total_seconds()
    if since > (limit := round(BEAT_MISSED_SWEEPS * interval)):
        return f"the stale sweep last ran {since:.0f}s ago, more than {limit}s"
    return None


def check_arenas() -> str | None:
    budget = settings.RECOMPUTE_STALE_BUDGET_SECONDS
    late = Arena.objects.filter(scores_stale_since__lt=timezone.now() - timedelta(seconds=budget))
    slugs = list(late.order_by("slug").values_list("slug", flat=True)[:6])
    more = " …" if slugs[5:] else ""
    return f"stale for more than {budget}s: {', '.join(slugs[:5])}{more}" if slugs else None


WARNINGS = frozenset({"broker_policy", "beat", "arenas"})  # never fail /readyz (but ?strict=1)


def run_checks() -> dict[str, str]:
    """Each check's ``ok``, ``error: <exception class>`` (it raised) or ``warning: <what>``."""
    checks: dict[str, Callable[[], str | None]] = {"database": check_database}
    if isinstance(cache := caches["default"], ResilientRedisCache):
        checks["redis"] = cache.ping  # (past its outage back-off)
    if settings.CELERY_BROKER_URL:
        checks["broker"] = check_broker
        if broker.is_redis(settings.CELERY_BROKER_URL):
            checks |= {"broker_policy": check_broker_policy, "beat": check_beat}
    checks["arenas"] = check_arenas
    results: dict[str, str] = {}
    for name, check in checks.items():
        try:
            problem = check()
        except Exception as exc:  # noqa: BLE001 - any failure: not ready (a warning: not checked)
            if name not in WARNINGS:
                log.warning("readiness check %s failed: %s: %s", name, type(exc).__name__, exc)
                results[name] = f"error: {type(exc).__name__}"
                continue
            problem = f"not checked ({type(exc).__name__})"
        if problem:
            log.warning("readiness check %s: %s", name, problem)
        results[name] = WARNING + problem if problem else "ok"
    return results


@require_safe
@cache_control(no_store=True)
def readyz(request: HttpRequest) -> HttpResponse:
    results = run_checks()
    warnings = sorted(k for k, v in results.items() if v.startswith(WARNING))
    strict = request.GET.get("strict", "") not in ("", "0")
    failing = sorted(k for k, v in results.items() if v != "ok" and (strict or k not in warnings))
    body: dict[str, object] = {"status": "unavailable" if failing else "ok", "checks": results}
    if failing:
        body["failing"] = failing
    if warnings:
        body["warnings"] = warnings
    return JsonResponse(body, status=503 if failing else 200)
