"""Health checks for load balancers and orchestrators.

``/healthz`` (liveness): 200 while the process serves requests; no I/O at all, so a slow database or a
Redis outage never gets a healthy process restarted.

``/readyz`` (readiness): the database answers a trivial query, and, where configured, the Redis cache
answers PING (``REDIS_URL``) and the Celery broker accepts a connection (``CELERY_BROKER_URL``), each
with a short timeout. 200 ``{"status": "ok", "checks": {...}}``, or 503 with ``"status":
"unavailable"`` and each failing part named (``"error: ConnectionError"``; details go to the log, not
to the caller). The site itself degrades during a Redis outage (README, "Outages"); /readyz still says
so, for monitoring.

Both answer GET and HEAD, send ``Cache-Control: no-store``, touch no session or cookie, and are plain
Django views (no DRF throttle counts them). With ``DEBUG=0`` they are exempt from the HTTPS redirect
(``SECURE_REDIRECT_EXEMPT``), since probes usually speak plain HTTP to the app; they still need a Host
header from ``ALLOWED_HOSTS``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from celery import current_app as celery_app
from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.http import require_http_methods

from web.http.cache import ResilientRedisCache

log = logging.getLogger(__name__)

BROKER_TIMEOUT = 1.0  # seconds for the broker check, connecting included


def _no_store(response: HttpResponse) -> HttpResponse:
    response["Cache-Control"] = "no-store"
    return response


@require_http_methods(["GET", "HEAD"])
def healthz(request: HttpRequest) -> HttpResponse:
    """Liveness: the process is up. No database, no cache, no session."""
    return _no_store(JsonResponse({"status": "ok"}))


def check_database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def check_redis() -> None:
    cache = caches["default"]
    if isinstance(cache, ResilientRedisCache):  # PING past its outage back-off
        cache.ping()
    elif isinstance(cache, RedisCache):
        cache._cache.get_client(None, write=True).ping()


def check_broker() -> None:
    with celery_app.connection_for_write(settings.CELERY_BROKER_URL) as conn:
        # one attempt, no retry sleeps; the transport options' socket timeouts bound it
        conn.ensure_connection(max_retries=0, timeout=BROKER_TIMEOUT)


def configured_checks() -> dict[str, Callable[[], None]]:
    """The checks /readyz runs, by the name its answer gives each."""
    checks = {"database": check_database}
    if isinstance(caches["default"], RedisCache):
        checks["redis"] = check_redis
    if settings.CELERY_BROKER_URL:
        checks["broker"] = check_broker
    return checks


@require_http_methods(["GET", "HEAD"])
def readyz(request: HttpRequest) -> HttpResponse:
    """Readiness: the database, and where configured Redis and the broker, answer."""
    results: dict[str, str] = {}
    for name, check in configured_checks().items():
        try:
            check()
        except Exception as exc:  # noqa: BLE001 - any failure means "not ready"
            log.warning("readiness check %s failed: %s: %s", name, type(exc).__name__, exc)
            results[name] = f"error: {type(exc).__name__}"
        else:
            results[name] = "ok"
    ready = all(v == "ok" for v in results.values())
    body: dict[str, object] = {"status": "ok" if ready else "unavailable", "checks": results}
    if not ready:
        body["failing"] = sorted(k for k, v in results.items() if v != "ok")
    return _no_store(JsonResponse(body, status=200 if ready else 503))
