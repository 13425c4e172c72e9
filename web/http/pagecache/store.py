"""Rendered pages as they are kept: ``Page`` (identity and gzip, served again without the view),
this process's recent pages in memory (``RecentPages``), and a streamed page kept once it has been
sent whole (``Kept``)."""

from __future__ import annotations

import gzip
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import BaseCache
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils.cache import patch_vary_headers

# Content worth compressing when stored.
COMPRESSIBLE = re.compile(r"^(text/|application/(json|xml|atom\+xml|rss\+xml|javascript))")
ACCEPTS_GZIP = re.compile(r"\bgzip\b")
# Headers not stored with a page: per response, or set by this middleware when serving it.
UNSTORED_HEADERS = frozenset({"content-length", "content-encoding", "set-cookie", "etag", "date"})


@dataclass(frozen=True)
class Page:
    """A rendered page as stored: everything needed to answer again without the view."""

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes
    gzipped: bytes | None

    @classmethod
    def of(cls, response: HttpResponse) -> Page:
        return cls.built(response, response.content)

    @classmethod
    def built(cls, response: HttpResponseBase, body: bytes) -> Page:
        """The page of ``response`` (its status and headers) with ``body``."""
        compress = len(body) >= 200 and COMPRESSIBLE.match(response.get("Content-Type", ""))
        return cls(
            status=response.status_code,
            headers=tuple((k, v) for k, v in response.items() if k.lower() not in UNSTORED_HEADERS),
            body=body,
            gzipped=gzip.compress(body, compresslevel=6, mtime=0) if compress else None,
        )

    @property
    def cost(self) -> int:
        """Bytes it holds (what the in-process budget counts)."""
        return len(self.body) + len(self.gzipped or b"")

    def response(self, request: HttpRequest, etag: str) -> HttpResponse:
        gzipped = self.gzipped is not None and ACCEPTS_GZIP.search(
            request.META.get("HTTP_ACCEPT_ENCODING", "")
        )
        body = self.gzipped if gzipped else self.body
        assert body is not None
        response = HttpResponse(b"" if request.method == "HEAD" else body, status=self.status)
        for key, value in self.headers:
            response[key] = value
        response["Content-Length"] = str(len(body))
        response["ETag"] = etag
        if self.gzipped is not None:
            patch_vary_headers(response, ("Accept-Encoding",))
            if gzipped:
                response["Content-Encoding"] = "gzip"
        return response


def storable(response: HttpResponseBase, *, streamed: bool = False) -> bool:
    """Whether a response is the same for everybody and may be kept and shared (``streamed``: once
    its stream has been sent whole)."""
    if response.status_code != 200 or response.streaming != streamed or response.cookies:
        return False
    vary = {v.strip().lower() for v in response.get("Vary", "").split(",")}
    control = response.get("Cache-Control", "").lower()
    return "cookie" not in vary and "private" not in control and "no-store" not in control


class RecentPages:
    """The pages this process served last, in memory, up to a byte budget (least recently used out
    first): a hit neither unpickles a copy from the local-memory cache nor fetches one from Redis.
    Safe because a key names one version of one page: an entry is never out of date, only unused.
    """

    def __init__(self, budget: int):
        self.budget = budget
        self.size = 0
        self.pages: OrderedDict[str, Page] = OrderedDict()
        self.lock = threading.Lock()  # gthread workers serve several requests at once

    def get(self, key: str) -> Page | None:
        with self.lock:
            page = self.pages.get(key)
            if page is not None:
                self.pages.move_to_end(key)
            return page

    def put(self, key: str, page: Page) -> None:
        cost = page.cost
        if cost > self.budget:
            return
        with self.lock:
            if key in self.pages:
                return
            self.pages[key] = page
            self.size += cost
            while self.size > self.budget:
                _, dropped = self.pages.popitem(last=False)
                self.size -= dropped.cost

    def clear(self) -> None:
        with self.lock:
            self.pages.clear()
            self.size = 0


_recent: RecentPages | None = None


def recent_pages() -> RecentPages:
    """This process's recent pages (one per process, shared by every handler in it)."""
    global _recent
    if _recent is None:
        _recent = RecentPages(settings.PAGE_CACHE_LOCAL_BYTES)
    return _recent


class Kept:
    """A streamed response's chunks, passed on as they come; the whole body is stored as the page
    once the last chunk has gone (a client that leaves early stores nothing), and then the
    stampede lock (when this render holds it) is let go, so that requests waiting for the same
    export get the stored one instead of rendering it again."""

    def __init__(
        self,
        cache: BaseCache,
        response: HttpResponseBase,
        content: Iterable[bytes],
        key: str,
        lock: str | None,
    ) -> None:
        self.cache, self.key, self.lock = cache, key, lock
        self.status = response.status_code
        self.headers = list(response.items())
        self.content = content

    def __iter__(self) -> Iterator[bytes]:
        chunks = []
        try:
            for chunk in self.content:
                chunks.append(chunk)
                yield chunk
            stored = HttpResponse(status=self.status)
            for k, v in self.headers:
                stored[k] = v
            page = Page.built(stored, b"".join(chunks))
            self.cache.set(self.key, page, timeout=settings.PAGE_CACHE_TIMEOUT)
        finally:
            self.close()

    def close(self) -> None:
        """Called by the handler when the response is done with (sent whole or not)."""
        if self.lock is not None:
            lock, self.lock = self.lock, None
            self.cache.delete(lock)
