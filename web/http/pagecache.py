"""The page cache: a public page is kept under its content version (``pagekeys``) and served, or
answered 304, before any view runs; a miss renders once. Every other GET/HEAD gets
``Cache-Control`` and a validator. Above sessions: a hit skips them (docs/operations.md, "Caching")."""

from __future__ import annotations

import functools
import gzip
import hashlib
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import cast

from django.conf import settings
from django.core.cache import BaseCache, caches
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
from django.utils.cache import get_conditional_response, patch_vary_headers

from core.text import parse_rate
from web.http.cache import LRU
from web.http.clients import client_key
from web.http.pagekeys import (
    DATED_VERSIONS,
    PAGE_VERSIONS,
    PRIVATE_PAGES,
    PageIdentity,
    Query,
    cache_control,
)

# What the stampede lock waits for at most before rendering anyway (a crashed renderer).
LOCK_SECONDS = 10.0
POLL_SECONDS = 0.02
# Sent after each render of a versioned public page with its cache ``key`` and ``path``.
page_rendered = Signal()
# Statuses a shared cache may keep; anything else (a 400 with a message, a 429, a 5xx) is no-store.
PUBLIC_STATUSES = frozenset({200, 203, 204, 301, 302, 304, 307, 308, 404, 410})
COMPRESSIBLE = re.compile(r"^(text/|application/(json|xml|atom\+xml|rss\+xml|javascript))")
# Headers not stored with a page: per response, or set when serving it.
UNSTORED_HEADERS = frozenset({"content-length", "content-encoding", "set-cookie", "etag", "date"})


@dataclass(frozen=True)
class Page:
    """A rendered page as stored: everything needed to answer again without the view."""

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes
    gzipped: bytes | None

    @classmethod
    def of(cls, response: HttpResponseBase, body: bytes) -> Page:
        compress = len(body) >= 200 and COMPRESSIBLE.match(response.get("Content-Type", ""))
        return cls(
            status=response.status_code,
            headers=tuple((k, v) for k, v in response.items() if k.lower() not in UNSTORED_HEADERS),
            body=body,
            gzipped=gzip.compress(body, compresslevel=6, mtime=0) if compress else None,
        )

    @property
    def cost(self) -> int:
        return len(self.body) + len(self.gzipped or b"")

    def response(self, request: HttpRequest, etag: str) -> HttpResponse:
        accepts = re.search(r"\bgzip\b", request.META.get("HTTP_ACCEPT_ENCODING", ""))
        body = self.gzipped if self.gzipped is not None and accepts else self.body
        response = HttpResponse(b"" if request.method == "HEAD" else body, status=self.status)
        for key, value in self.headers:
            response[key] = value
        response["Content-Length"] = str(len(body))
        response["ETag"] = etag
        if self.gzipped is not None:
            patch_vary_headers(response, ("Accept-Encoding",))
            if body is self.gzipped:
                response["Content-Encoding"] = "gzip"
        return response


def storable(response: HttpResponseBase, *, streamed: bool = False) -> bool:
    """Whether a response is the same for everybody and may be kept and shared."""
    control = response.get("Cache-Control", "").lower()
    return not (
        response.status_code != 200
        or response.streaming != streamed
        or response.cookies
        or _varies_on_cookie(response)
        or "private" in control
        or "no-store" in control
    )


def _varies_on_cookie(response: HttpResponseBase) -> bool:
    return "cookie" in {v.strip().lower() for v in response.get("Vary", "").split(",")}


@functools.cache
def recent_pages() -> LRU:
    """The pages this process served last (``PAGE_CACHE_LOCAL_BYTES``), kept as they are: a hit
    neither fetches nor unpickles a copy (a key names one version of one page)."""
    return LRU(settings.PAGE_CACHE_LOCAL_BYTES)


class Kept:
    """A streamed response's chunks, passed on as they come and stored as the page once the last
    has gone (a client that leaves early stores nothing); then the stampede lock is let go."""

    def __init__(
        self, cache: BaseCache, response: HttpResponseBase, key: str, lock: str | None
    ) -> None:
        self.cache, self.key, self.lock = cache, key, lock
        self.stored = HttpResponse(status=response.status_code)
        for k, v in response.items():
            self.stored[k] = v
        self.content: Iterable[bytes] = iter(response)

    def __iter__(self) -> Iterator[bytes]:
        chunks = []
        try:
            for chunk in self.content:
                chunks.append(chunk)
                yield chunk
            page = Page.of(self.stored, b"".join(chunks))
            self.cache.set(self.key, page, timeout=settings.PAGE_CACHE_TIMEOUT)
        finally:
            self.close()

    def close(self) -> None:  # (the handler's, once the response is done with)
        if self.lock is not None:
            lock, self.lock = self.lock, None
            self.cache.delete(lock)


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
            return _finish(request, self.get_response(request))
        request.resolver_match = match  # (the metrics' label: a hit never reaches the handler's)
        url_name = match.url_name or ""
        versioner = PAGE_VERSIONS.get(url_name)
        if versioner is None:
            return _finish(request, self.get_response(request), private=url_name in PRIVATE_PAGES)
        query = Query.of(request, url_name, match)
        # parameters the page does not read (made up, or a tracker's): a browser's full page is
        # sent to its one address; htmx's swaps and API clients get the canonical page
        api = request.path_info.startswith("/api/")
        if query.unknown and not api and "HTTP_HX_REQUEST" not in request.META:
            location = request.path + (f"?{query.text}" if query.text else "")
            return _finish(request, HttpResponsePermanentRedirect(location))
        query.apply(request)
        version = versioner(**match.kwargs)
        if version is None:  # no such arena or cell: the view says 404
            if limited := self._over_miss_limit(request):  # (made-up addresses are misses too)
                return limited
            return _finish(request, self.get_response(request))
        dated = versioner in DATED_VERSIONS
        page_id = PageIdentity.of(request, version, dated=dated, match=match, query=query)
        if (not_modified := _not_modified(request, page_id.etag)) is not None:
            not_modified["ETag"] = page_id.etag
            not_modified["Cache-Control"] = cache_control()
            patch_vary_headers(not_modified, page_id.vary)
            return not_modified
        if not settings.PAGE_CACHE:
            return _finish(request, self._render(request, page_id), etag=page_id.etag)
        request.META["arena.page_cache"] = "hit"  # logs, metrics
        page = self.recent.get(page_id.key)
        if page is None and query.kept:
            page = self.cache.get(page_id.key)
        if page is None:
            request.META["arena.page_cache"] = "miss"
            if not query.kept:  # a value the cache does not keep pages for (a search, weights...)
                response = self._over_miss_limit(request) or self._render(request, page_id)
                return _finish(request, response, etag=page_id.etag)
            page, response = self._render_once(request, page_id)
            if page is None:  # not the same for everybody (or not a 200): as it is
                return _finish(request, response, etag=page_id.etag)
        self.recent.put(page_id.key, page, page.cost)
        return page.response(request, page_id.etag)

    def _render(self, request: HttpRequest, page_id: PageIdentity) -> HttpResponseBase:
        response = self.get_response(request)
        page_rendered.send(PageCacheMiddleware, key=page_id.key, path=request.path)
        patch_vary_headers(response, page_id.vary)
        if response.status_code == 200 and not response.cookies:
            response["Surrogate-Key"] = page_id.tags  # (kept with the page: its hits carry it too)
        if storable(response, streamed=response.streaming):
            response.headers.setdefault("Cache-Control", cache_control())
        return response

    def _over_miss_limit(self, request: HttpRequest) -> HttpResponse | None:
        """A 429 beyond ``PAGE_MISS_RATE`` pages rendered for one client (the API: DRF's throttles)."""
        if not settings.PAGE_MISS_RATE or request.path_info.startswith("/api/"):
            return None
        count, period = parse_rate(settings.PAGE_MISS_RATE)
        now = time.time()
        key = f"misses:{client_key(request)}:{int(now // period)}"
        self.cache.add(key, 0, timeout=period + 1)
        try:
            if self.cache.incr(key) <= count:
                return None
        except ValueError:  # the cache is down: pages are rendered, not refused
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
        """Render and store the page once for all who miss it at once: the others wait (up to
        LOCK_SECONDS) for the lock holder's entry; a stream holds the lock until stored."""
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
            response = self._over_miss_limit(request) or self._render(request, page_id)
            if isinstance(response, StreamingHttpResponse) and storable(response, streamed=True):
                # sent as it is made (a large export), and kept once it has been sent whole
                response.streaming_content = Kept(
                    self.cache, response, key, lock if holder else None
                )
                release = False  # (the stream lets it go)
                return None, response
            if not storable(response):
                return None, response
            page = Page.of(response, cast(HttpResponse, response).content)
            self.cache.set(key, page, timeout=settings.PAGE_CACHE_TIMEOUT)
            return page, response
        finally:
            if release:
                self.cache.delete(lock)


def _finish(
    request: HttpRequest,
    response: HttpResponseBase,
    *,
    etag: str | None = None,
    private: bool = False,
) -> HttpResponseBase:
    """Cache-Control and a validator for an answer not served from the cache, a 304 when the
    client has it already, and no body for HEAD."""
    if "Cache-Control" not in response:
        if response.status_code not in PUBLIC_STATUSES:
            response["Cache-Control"] = "no-store"
        elif private or response.cookies or _varies_on_cookie(response):
            response["Cache-Control"] = "private, no-cache"
        else:
            response["Cache-Control"] = cache_control()
    if isinstance(response, StreamingHttpResponse):
        if etag is not None and response.status_code == 200:
            response["ETag"] = etag
        if request.method == "HEAD":
            # made whole (and so kept, when it may be) to say how long it is
            length = sum(len(chunk) for chunk in response)
            response.streaming_content = []
            response["Content-Length"] = str(length)
        return response
    response = cast(HttpResponse, response)
    if response.status_code == 200:
        if etag is None and "ETag" not in response:
            etag = f'W/"{hashlib.blake2b(response.content, digest_size=10).hexdigest()}"'
        if etag is not None:
            response["ETag"] = etag
            if (answer := _not_modified(request, etag, response)) is not None:
                return answer
    if request.method == "HEAD":
        length = len(response.content)
        response.content = b""
        response["Content-Length"] = str(length)
    return response


def _not_modified(
    request: HttpRequest, etag: str, response: HttpResponse | None = None
) -> HttpResponseNotModified | None:
    """A 304 when the client's copy (``If-None-Match``, compared weakly) is this one."""
    answer = get_conditional_response(request, etag=etag, response=response)
    return answer if isinstance(answer, HttpResponseNotModified) else None
