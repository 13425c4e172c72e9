"""The page cache: public pages kept by content version, served or 304'd before any view runs."""

from __future__ import annotations

import functools
import gzip
import hashlib
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, cast

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.locmem import LocMemCache
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
from django.utils.cache import get_conditional_response, has_vary_header, patch_vary_headers

from core.text import parse_rate
from web.http import pagekeys
from web.http.clients import client_key
from web.http.pagekeys import PageIdentity, cache_control

WAIT_SECONDS = 10.0  # for another's render of a page, then a 503 (never a second render at once)
POLL_SECONDS = 0.02
page_rendered = Signal()  # after each render of a versioned public page, with its ``key``, ``path``
# Statuses a shared cache may keep; anything else (a 400 with a message, a 429, a 5xx) is no-store.
PUBLIC_STATUSES = frozenset({200, 203, 204, 301, 302, 304, 307, 308, 404, 410})
COMPRESSIBLE = re.compile(r"^(text/|application/(json|xml|atom\+xml|rss\+xml|javascript))")
# Headers not stored with a page: per response, or set when serving it.
UNSTORED_HEADERS = frozenset({"content-length", "content-encoding", "set-cookie", "etag", "date"})


@dataclass(frozen=True)
class Page:
    """A rendered page as stored, gzipped once (not by GZipMiddleware on every hit)."""

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
        headers = {**dict(self.headers), "Content-Length": str(len(body)), "ETag": etag}
        response = HttpResponse(
            b"" if request.method == "HEAD" else body, status=self.status, headers=headers
        )
        if self.gzipped is not None:
            patch_vary_headers(response, ("Accept-Encoding",))
            if body is self.gzipped:
                response["Content-Encoding"] = "gzip"
        return response


class LRU:
    """Values within ``max_bytes``, the least recently used dropped first."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes, self.size = max_bytes, 0
        self.entries: OrderedDict[str, tuple[Any, int]] = OrderedDict()
        self.lock = threading.Lock()  # gthread workers serve several requests at once

    def get(self, key: str) -> Any | None:
        with self.lock:
            if (found := self.entries.get(key)) is None:
                return None
            self.entries.move_to_end(key)
            return found[0]

    def put(self, key: str, value: Any, size: int) -> None:
        with self.lock:
            if (old := self.entries.pop(key, None)) is not None:
                self.size -= old[1]
            if size > self.max_bytes:
                return
            self.entries[key] = (value, size)
            self.size += size
            while self.size > self.max_bytes:
                self.size -= self.entries.popitem(last=False)[1][1]

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()
            self.size = 0


@functools.cache
def recent_pages() -> LRU:
    """This process's pages, unpickled: those it served last, or without Redis all it keeps."""
    alone = isinstance(caches["pages"], LocMemCache)
    return LRU(settings.PAGE_CACHE_MEMORY_BYTES if alone else settings.PAGE_CACHE_LOCAL_BYTES)


def stored(key: str) -> Page | None:
    """The page kept under ``key``: this process's copy, else Redis's (``caches["pages"]``)."""
    page = recent_pages().get(key)
    if page is None and not isinstance(cache := caches["pages"], LocMemCache):
        if (page := cache.get(key)) is not None:
            recent_pages().put(key, page, page.cost)
    return page


def store(key: str, page: Page) -> None:
    recent_pages().put(key, page, page.cost)
    if not isinstance(cache := caches["pages"], LocMemCache):
        cache.set(key, page, timeout=settings.PAGE_CACHE_TIMEOUT)


def storable(response: HttpResponseBase) -> bool:
    """Whether a response is the same for everybody and may be kept and shared."""
    cache = response.get("Cache-Control", "").lower()
    personal = response.cookies or has_vary_header(response, "Cookie")
    return response.status_code == 200 and not personal and not re.search("private|no-store", cache)


KEPT_STREAM_BYTES = 16 * 1024 * 1024  # a longer stream is passed on, never held whole to keep


class Kept:
    """A stream passed on, stored once whole (unless cut or too long), then unlocked."""

    def __init__(self, response: HttpResponseBase, key: str, lock: str | None) -> None:
        self.key, self.lock = key, lock
        self.stored = HttpResponse(status=response.status_code, headers=dict(response.items()))
        self.content: Iterable[bytes] = iter(response)

    def __iter__(self) -> Iterator[bytes]:
        chunks: list[bytes] = []
        held = 0
        try:
            for chunk in self.content:
                held += len(chunk)
                if held <= KEPT_STREAM_BYTES:
                    chunks.append(chunk)
                else:
                    chunks.clear()
                yield chunk
            if held <= KEPT_STREAM_BYTES:
                store(self.key, Page.of(self.stored, b"".join(chunks)))
        finally:
            self.close()

    def close(self) -> None:  # (the handler's, once the response is done with)
        if self.lock is not None:
            lock, self.lock = self.lock, None
            caches["pages"].delete(lock)


class PageCacheMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if request.method not in ("GET", "HEAD"):
            return self.get_response(request)
        try:
            match = resolve(request.path_info)
        except Resolver404:
            return _finish(request, self.get_response(request))
        request.resolver_match = match  # (the metrics' label: a hit never reaches the handler's)
        url_name = match.url_name or ""
        if (kind := pagekeys.PAGE_VERSIONS.get(url_name)) is None:
            return _finish(request, self.get_response(request))
        query = pagekeys.Query.of(request, url_name, match)
        # unread parameters (made up, a tracker's): a browser is redirected; htmx, API get the page
        api = request.path_info.startswith("/api/")
        if query.unknown and not api and "HTTP_HX_REQUEST" not in request.META:
            location = request.path + (f"?{query.text}" if query.text else "")
            return _finish(request, HttpResponsePermanentRedirect(location))
        query.apply(request)
        if (version := pagekeys.content_version(kind, match.kwargs)) is None:  # a 404, a miss
            return _over_miss_limit(request) or _finish(request, self.get_response(request))
        dated = kind in ("arena", "cell")  # (pages showing evidence ages: a new page each day)
        page_id = PageIdentity.of(request, version, dated=dated, match=match, query=query)
        headers = {"ETag": page_id.etag, "Cache-Control": cache_control()}
        if not_modified := _not_modified(request, page_id.etag, HttpResponse(headers=headers)):
            patch_vary_headers(not_modified, page_id.vary)
            return not_modified
        if not settings.PAGE_CACHE:
            return _finish(request, self._render(request, page_id), etag=page_id.etag)
        if query.kept and (page := stored(page_id.key)) is not None:
            request.META["arena.page_cache"] = "hit"  # logs, metrics
            return page.response(request, page_id.etag)
        request.META["arena.page_cache"] = "miss"
        if not query.kept:  # a value the cache keeps no pages for (a search, weights...)
            response = _over_miss_limit(request) or self._render(request, page_id)
            return _finish(request, response, etag=page_id.etag)
        return self._render_once(request, page_id)

    def _render(self, request: HttpRequest, page_id: PageIdentity) -> HttpResponseBase:
        response = self.get_response(request)
        page_rendered.send(PageCacheMiddleware, key=page_id.key, path=request.path)
        patch_vary_headers(response, page_id.vary)
        if response.status_code == 200 and not response.cookies:
            response["Surrogate-Key"] = page_id.tags  # (kept with the page: its hits carry it too)
        if storable(response):
            response.headers.setdefault("Cache-Control", cache_control())
        return response

    def _render_once(self, request: HttpRequest, page_id: PageIdentity) -> HttpResponseBase:
        """Render and store once; others wait up to WAIT_SECONDS for it, then get a 503."""
        cache, key, lock = caches["pages"], page_id.key, f"{page_id.key}:lock"
        holder = cache.add(lock, 1, timeout=settings.PAGE_RENDER_LOCK_SECONDS)
        # (the holder too: the page may have been stored, and the lock let go, since it missed)
        page, deadline = stored(key), time.monotonic() + (0 if holder else WAIT_SECONDS)
        held = not holder
        while page is None and held:
            time.sleep(POLL_SECONDS)
            held = cache.has_key(lock)  # (before the page: it stores, then lets go)
            if (page := stored(key)) is None and held and time.monotonic() > deadline:
                return _busy()
        try:
            if page is not None:
                return page.response(request, page_id.etag)
            response = _over_miss_limit(request) or self._render(request, page_id)
            if storable(response) and isinstance(response, StreamingHttpResponse):
                response.streaming_content = Kept(response, key, lock if holder else None)
                holder = False  # (the stream lets it go)
            elif storable(response):
                store(key, page := Page.of(response, cast(HttpResponse, response).content))
                return page.response(request, page_id.etag)
        finally:
            if holder:
                cache.delete(lock)
        return _finish(request, response, etag=page_id.etag)


def _busy() -> HttpResponse:
    """Another request has rendered this page for longer than a waiter waits: try again soon."""
    return _refusal("This page is being prepared: try again in a few seconds.\n", 503, 5)


def _refusal(text: str, code: int, retry_after: int) -> HttpResponse:
    extra = {"Retry-After": str(retry_after), "Cache-Control": "no-store"}
    return HttpResponse(text, status=code, content_type="text/plain; charset=utf-8", headers=extra)


def _over_miss_limit(request: HttpRequest) -> HttpResponse | None:
    """A 429 beyond ``PAGE_MISS_RATE`` pages rendered for one client (the API: DRF's throttles)."""
    if not settings.PAGE_MISS_RATE or request.path_info.startswith("/api/"):
        return None
    count, period = parse_rate(settings.PAGE_MISS_RATE)
    now, cache = time.time(), caches["pages"]
    key = f"misses:{client_key(request)}:{int(now // period)}"
    cache.add(key, 0, timeout=period + 1)
    try:
        if cache.incr(key) <= count:
            return None
    except ValueError:  # the cache is down: pages are rendered, not refused
        return None
    wait = max(1, int(period - now % period) + 1)
    return _refusal(f"Too many pages asked for: try again in {wait} seconds.\n", 429, wait)


def _finish(
    request: HttpRequest, response: HttpResponseBase, *, etag: str | None = None
) -> HttpResponseBase:
    """Cache-Control and an ETag for an uncached answer, or a 304; a stream's length for HEAD."""
    if "Cache-Control" not in response:
        if response.status_code not in PUBLIC_STATUSES:
            response["Cache-Control"] = "no-store"
        elif response.cookies or has_vary_header(response, "Cookie"):
            response["Cache-Control"] = "private, no-cache"
        else:
            response["Cache-Control"] = cache_control()
    if response.status_code != 200:
        return response
    if isinstance(response, StreamingHttpResponse):
        if etag is not None:
            response["ETag"] = etag
        if request.method == "HEAD":
            # made whole (and so kept, when it may be) to say how long it is
            length = sum(len(chunk) for chunk in response)
            response.streaming_content = []
            response["Content-Length"] = str(length)
        return response
    response = cast(HttpResponse, response)
    if not (etag := etag or response.get("ETag")):
        etag = f'W/"{hashlib.blake2b(response.content, digest_size=10).hexdigest()}"'
    response["ETag"] = etag
    return _not_modified(request, etag, response) or response


def _not_modified(
    request: HttpRequest, etag: str, response: HttpResponse | None = None
) -> HttpResponseNotModified | None:
    """A 304 when the client's copy (``If-None-Match``, compared weakly) is this one."""
    answer = get_conditional_response(request, etag=etag, response=response)
    return answer if isinstance(answer, HttpResponseNotModified) else None
