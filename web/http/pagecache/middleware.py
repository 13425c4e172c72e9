"""The page cache's middleware: a 304 or a kept page before any view runs, a miss rendered once,
and ``Cache-Control``, a validator and ``HEAD`` for every other answer (the package's docstring
says how)."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import cast

from django.conf import settings
from django.core.cache import caches
from django.dispatch import Signal
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    HttpResponseNotModified,
    HttpResponsePermanentRedirect,
    StreamingHttpResponse,
)
from django.urls import Resolver404, resolve
from django.utils.cache import patch_vary_headers
from django.utils.http import parse_etags

from core.text import parse_rate
from web.http import surrogate
from web.http.clients import client_key
from web.http.pagecache.keys import PageIdentity, Query
from web.http.pagecache.store import (
    Kept,
    Page,
    recent_pages,
    storable,
)
from web.http.pagecache.versions import (
    DATED_VERSIONERS,
    PAGE_VERSIONS,
    PRIVATE_PAGES,
    cache_control,
)

# What the stampede lock waits for at most before rendering anyway (a crashed renderer).
LOCK_SECONDS = 10.0
POLL_SECONDS = 0.02
# Sent after each render of a versioned public page (a miss; every request with PAGE_CACHE=0) with
# its cache ``key`` and ``path``: how a test counts the renders of concurrent misses (one), and a
# hook for metrics.
page_rendered = Signal()
# Statuses a shared cache may keep; anything else (a 400 with a message, a 429, a 5xx) is no-store.
PUBLIC_STATUSES = frozenset({200, 203, 204, 301, 302, 304, 307, 308, 404, 410})


class PageCacheMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response
        self.cache = caches["pages"]
        self.recent = recent_pages()

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if request.method not in ("GET", "HEAD"):
            return self.get_response(request)
        try:
            match = resolve(request.path_info)
        except Resolver404:
            return self._finish(request, self.get_response(request))
        url_name = match.url_name or ""
        versioner = PAGE_VERSIONS.get(url_name)
        if versioner is None:
            private = url_name in PRIVATE_PAGES
            return self._finish(request, self.get_response(request), private=private)
        query = Query.of(request, url_name, match)
        if query.unknown and _redirects(request):
            # parameters the page does not read (made up, or a tracker's): its one address
            location = request.path + (f"?{query.text}" if query.text else "")
            return self._finish(request, HttpResponsePermanentRedirect(location))
        query.apply(request)
        version = versioner(**match.kwargs)
        if version is None:  # no such arena or cell: the view says 404
            if limited := self._over_miss_limit(request):  # (made-up addresses are misses too)
                return limited
            return self._finish(request, self.get_response(request))
        dated = versioner in DATED_VERSIONERS
        surrogate.remember(request, surrogate.page_keys(match.kwargs, version, arena_bound=dated))
        page_id = PageIdentity.of(request, version, dated=dated, match=match, query=query)
        if _matches(request, page_id.etag):
            return self._not_modified(page_id)
        if not settings.PAGE_CACHE:
            response = self._render(request, page_id)
            return self._finish(request, response, etag=page_id.etag)
        page = self.recent.get(page_id.key)
        request.META["arena.page_cache"] = "hit"  # logs, metrics
        if page is not None:  # served last by this process: nothing else to do
            return page.response(request, page_id.etag)
        page = self.cache.get(page_id.key) if query.kept else None
        if page is None:
            request.META["arena.page_cache"] = "miss"
            if not query.kept:  # a value the cache does not keep pages for (a search, weights...)
                if limited := self._over_miss_limit(request):
                    return limited
                response = self._render(request, page_id)
                return self._finish(request, response, etag=page_id.etag)
            page, response = self._render_once(request, page_id)
            if page is None:  # not the same for everybody (or not a 200): as it is
                return self._finish(request, response, etag=page_id.etag)
        self.recent.put(page_id.key, page)
        return page.response(request, page_id.etag)

    # -- rendering a miss
    def _render(self, request: HttpRequest, page_id: PageIdentity) -> HttpResponseBase:
        response = self.get_response(request)
        page_rendered.send(PageCacheMiddleware, key=page_id.key, path=request.path)
        patch_vary_headers(response, page_id.vary)
        surrogate.tag(request, response)  # (kept with the page: its hits carry it too)
        if storable(response) and "Cache-Control" not in response:
            response["Cache-Control"] = cache_control()
        return response

    def _over_miss_limit(self, request: HttpRequest) -> HttpResponse | None:
        """A 429 when the client has had more pages rendered for it than ``PAGE_MISS_RATE`` allows
        in this period (pages served from the cache do not count). The API has DRF's throttles,
        which count its renders the same way (a cached answer never reaches the view)."""
        if not settings.PAGE_MISS_RATE or request.path_info.startswith("/api/"):
            return None
        count, period = parse_rate(settings.PAGE_MISS_RATE)
        now = time.time()
        key = f"misses:{client_key(request)}:{int(now // period)}"
        self.cache.add(key, 0, timeout=period + 1)
        try:
            done = self.cache.incr(key)
        except ValueError:  # the cache is down: pages are rendered, not refused
            return None
        if done <= count:
            return None
        wait = max(1, int(period - now % period) + 1)
        response = HttpResponse(
            f"Too many pages asked for: try again in {wait} seconds.\n",
            status=429,
            content_type="text/plain; charset=utf-8",
        )
        response["Retry-After"] = str(wait)
        response["Cache-Control"] = "no-store"
        return response

    def _render_once(
        self, request: HttpRequest, page_id: PageIdentity
    ) -> tuple[Page | None, HttpResponseBase]:
        """Render and store the page, once for all the processes that miss it at the same time:
        the others wait (up to LOCK_SECONDS) for the entry the lock holder stores. A streamed page
        (an export) holds the lock until its last chunk has been sent and the page stored."""
        key, lock = page_id.key, f"{page_id.key}:lock"
        holder = self.cache.add(lock, 1, timeout=LOCK_SECONDS)
        if holder:
            # the page may have been stored (and the lock let go) since this request missed it
            if (page := self.cache.get(key)) is not None:
                self.cache.delete(lock)
                return page, HttpResponse()
        else:
            deadline = time.monotonic() + LOCK_SECONDS
            while time.monotonic() < deadline:
                time.sleep(POLL_SECONDS)
                held = self.cache.has_key(lock)  # (before the page: it stores, then lets go)
                if (page := self.cache.get(key)) is not None:
                    return page, HttpResponse()
                if not held:  # the holder stored nothing (not storable)
                    break
        release = holder
        try:
            if limited := self._over_miss_limit(request):
                return None, limited
            response = self._render(request, page_id)
            if isinstance(response, StreamingHttpResponse):
                if not storable(response, streamed=True):
                    return None, response
                # sent as it is made (a large export), and kept once it has been sent whole
                response["Cache-Control"] = response.get("Cache-Control") or cache_control()
                chunks = iter(response)  # (its streaming content, as bytes)
                kept = Kept(self.cache, response, chunks, key, lock if holder else None)
                response.streaming_content = kept
                release = False  # (the stream lets it go)
                return None, response
            if not storable(response):
                return None, response
            page = Page.of(_whole(response))
            self.cache.set(key, page, timeout=settings.PAGE_CACHE_TIMEOUT)
            return page, response
        finally:
            if release:
                self.cache.delete(lock)

    # -- every other answer
    def _not_modified(self, page_id: PageIdentity) -> HttpResponse:
        response = HttpResponseNotModified()
        response["ETag"] = page_id.etag
        response["Cache-Control"] = cache_control()
        patch_vary_headers(response, page_id.vary)
        return response

    def _finish(
        self,
        request: HttpRequest,
        response: HttpResponseBase,
        *,
        etag: str | None = None,
        private: bool = False,
    ) -> HttpResponseBase:
        """Cache-Control and a validator for a response that is not served from the cache, a 304
        when the client has it already, and no body for HEAD."""
        if "Cache-Control" not in response:
            response["Cache-Control"] = _policy(response, private)
        if isinstance(response, StreamingHttpResponse):
            if etag is not None and response.status_code == 200:
                response["ETag"] = etag
            if request.method == "HEAD":
                # made whole (and so kept, when it may be) to say how long it is
                length = sum(len(chunk) for chunk in response)
                response.streaming_content = []
                response["Content-Length"] = str(length)
            return response
        response = _whole(response)
        if etag is None and response.status_code == 200 and "ETag" not in response:
            body_digest = hashlib.blake2b(response.content, digest_size=10).hexdigest()
            etag = f'W/"{body_digest}"'
        if etag is not None and response.status_code == 200:
            response["ETag"] = etag
            if _matches(request, etag):
                not_modified = HttpResponseNotModified()
                for header in ("ETag", "Cache-Control", "Vary"):
                    if header in response:
                        not_modified[header] = response[header]
                return not_modified
        if request.method == "HEAD":
            length = len(response.content)
            response.content = b""
            response["Content-Length"] = str(length)
        return response


def _whole(response: HttpResponseBase) -> HttpResponse:
    """A response that does not stream: Django's responses are HttpResponses or streaming ones."""
    return cast(HttpResponse, response)


def _redirects(request: HttpRequest) -> bool:
    """Whether a request with parameters its page does not read is redirected to the page's
    canonical address (full pages asked for by a browser), rather than answered with the canonical
    page (htmx's requests, whose swaps and pushed addresses a redirect would disturb, and API
    clients)."""
    return not request.path_info.startswith("/api/") and "HTTP_HX_REQUEST" not in request.META


def _policy(response: HttpResponseBase, private: bool) -> str:
    if response.status_code not in PUBLIC_STATUSES:
        return "no-store"
    vary = {v.strip().lower() for v in response.get("Vary", "").split(",")}
    if private or response.cookies or "cookie" in vary:
        return "private, no-cache"
    return cache_control()


def _matches(request: HttpRequest, etag: str) -> bool:
    """Weak comparison (RFC 9110 §13.1.2): the client's copy is this version of this page."""
    header = request.META.get("HTTP_IF_NONE_MATCH")
    if not header:
        return False
    if header.strip() == "*":
        return True
    mine = etag.removeprefix("W/")
    return any(tag.removeprefix("W/") == mine for tag in parse_etags(header))
