"""Each request's id, access log line and /metrics counters. The first middleware, so that its
time and status cover the others, a page cache hit included."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import sentry_sdk
from django.http import HttpRequest, HttpResponseBase
from django.urls import Resolver404, resolve

from web.http import metrics, requestid

access_log = logging.getLogger("arena.access")

PAGE_CACHE_MARK = "arena.page_cache"
# a client may send any method name: the metrics' label takes the known ones, the rest are "other"
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def view_name(request: HttpRequest) -> str:
    """A bounded label, unlike the path (a page cache hit never reached the resolver)."""
    match = request.resolver_match
    if match is None:
        try:
            match = resolve(request.path_info)
        except Resolver404:
            return metrics.UNMATCHED
    return match.view_name or metrics.UNMATCHED


class RequestObservabilityMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        started = time.perf_counter()
        rid = requestid.sane(request.headers.get(requestid.HEADER)) or requestid.new_id()
        token = requestid.bind(rid)
        try:
            sentry_sdk.set_tag("request_id", rid)  # (a no-op without SENTRY_DSN)
            response = self.get_response(request)
            response[requestid.HEADER] = rid
            self._record(request, response, time.perf_counter() - started)
            return response
        finally:
            requestid.unbind(token)

    def _record(self, request: HttpRequest, response: HttpResponseBase, seconds: float) -> None:
        view = view_name(request)
        status = response.status_code
        cache = request.META.get(PAGE_CACHE_MARK)
        method = request.method if request.method in METHODS else "other"
        metrics.REQUESTS.labels(view=view, method=method, status=str(status)).inc()
        metrics.DURATION.labels(view=view).observe(seconds)
        if cache:
            metrics.PAGE_CACHE.labels(result=cache).inc()
        duration_ms = round(seconds * 1000, 1)
        access_log.info(
            "%s %s %s %sms%s",
            request.method,
            request.get_full_path(),
            status,
            duration_ms,
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
