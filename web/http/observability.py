"""Each request's id, access log line and /metrics counters (the first middleware: it times all)."""

import logging
import time
import uuid
from collections.abc import Callable

import sentry_sdk
from django.http import HttpRequest, HttpResponseBase
from prometheus_client import Counter, Histogram

from web.http import requestid

access_log = logging.getLogger("arena.access")

# a client may send any method name: the metrics' label takes the known ones, the rest are "other"
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
REQUESTS = Counter(  # (multiprocess mode reads PROMETHEUS_MULTIPROC_DIR before import)
    "arena_http_requests",
    "HTTP requests answered, by view (URL name), method and status",
    ["view", "method", "status"],
)
DURATION = Histogram(
    "arena_http_request_duration_seconds",
    "Time from the request reaching Django to its response (a streamed body not included), by view",
    ["view"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
PAGE_CACHE = Counter(
    "arena_page_cache_requests",
    "Public pages looked up in the page cache, by result (hit or miss)",
    ["result"],
)


def request_observability(
    get_response: Callable[[HttpRequest], HttpResponseBase],
) -> Callable[[HttpRequest], HttpResponseBase]:
    def middleware(request: HttpRequest) -> HttpResponseBase:
        started = time.perf_counter()
        rid = requestid.sane(request.headers.get(requestid.HEADER)) or uuid.uuid4().hex
        token = requestid.CURRENT.set(rid)
        try:
            sentry_sdk.set_tag("request_id", rid)  # (a no-op without SENTRY_DSN)
            response = get_response(request)
            response[requestid.HEADER] = rid
            record(request, response, time.perf_counter() - started)
            return response
        finally:
            requestid.CURRENT.reset(token)

    return middleware


def record(request: HttpRequest, response: HttpResponseBase, seconds: float) -> None:
    # the URL name, a bounded label unlike the path (the page cache hands a hit its match)
    view = getattr(request.resolver_match, "view_name", None) or "<unmatched>"
    status, cache = response.status_code, request.META.get("arena.page_cache")
    method = request.method if request.method in METHODS else "other"
    REQUESTS.labels(view=view, method=method, status=str(status)).inc()
    DURATION.labels(view=view).observe(seconds)
    if cache:
        PAGE_CACHE.labels(result=cache).inc()
    duration_ms = round(seconds * 1000, 1)
    access_log.info(
        "%s %s %s %sms%s",
        *(request.method, request.get_full_path(), status, duration_ms),
        f" cache={cache}" if cache else "",
        extra={
            "method": request.method,
            "path": request.path,
            "status": status,
            "duration_ms": duration_ms,
            "view": view,
            "cache": cache,
        },
    )
