"""HTTP caching of the public pages: validators, ``Cache-Control``, 304s, ``HEAD``, and a
server-side cache of rendered pages keyed by content version.

Every public page and API read belongs to a *version* (``PAGE_VERSIONS``, by URL name): an arena's
``content_version`` for its pages, a site-wide one for the pages spanning every arena, the release
for static pages. Writes bump the version in their own transaction, so:

* the ``ETag`` is the release, the version (with today's date for the pages that show how old
  evidence is) and the request's variant (htmx headers...): a
  revalidation (``If-None-Match``) is answered ``304`` after one small query, before any view runs;
* the rendered page is kept in the ``pages`` cache under that version (Redis when configured, shared
  by every process; local memory otherwise) and served from there, identity and gzip both stored;
  a change makes a new key, nothing is ever invalidated by a guess at a TTL (entries expire only to
  free memory);
* a miss renders once: the first request takes a lock (``cache.add``), the others wait for its
  entry instead of all rendering the same page (a stampede after each change); a streamed export
  holds the lock until it has been sent and stored;
* a key names the route, the query parameters that page reads (``PAGE_PARAMS``, in one canonical
  order and spelling) and the variant it serves (``page_variant``), nothing else, and a page is
  kept only when those values come from short known lists, so made-up parameters and header
  values make no entries (a full page asked with a parameter it does not read is redirected to
  its address without it); pages rendered for one client are limited (``PAGE_MISS_RATE``, 429).
  docs/pages.md ("Caching") bounds the entries per arena.

Every other GET/HEAD response gets ``Cache-Control`` (public for anonymous cookie-free answers,
``private, no-cache`` when the response sets or varies on a cookie, ``no-store`` for errors and
throttling), a weak ``ETag`` of its body, a ``304`` on revalidation, and no body for ``HEAD``.
Public pages must therefore be the same for everybody: no CSRF token, no CSP nonce, no session.

The middleware sits right below GZip (which leaves the pre-compressed entries alone) and above
sessions, CSRF, authentication and the rest: a cache hit skips them all.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from urllib import parse

from django.conf import settings
from django.core.cache import caches
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    HttpResponseNotModified,
    HttpResponsePermanentRedirect,
    QueryDict,
)
from django.http.request import split_domain_port
from django.urls import Resolver404, ResolverMatch, resolve
from django.utils.cache import patch_vary_headers
from django.utils.http import parse_etags
from django.utils.regex_helper import _lazy_re_compile
from django_htmx.middleware import HtmxDetails
from rest_framework.exceptions import APIException
from rest_framework.negotiation import DefaultContentNegotiation

from arena.scoring import RANK_INTEGRITY, RANK_PA, RANK_VERIFIED
from arena.selectors import COMPARE_MAX, COMPARE_MIN
from arena.selectors.matrix import STALE_ON
from arena.selectors.versions import arena_version_get, cell_version_get, site_version_get
from arena.text import parse_rate
from stories import freshness
from stories.values import Verdict
from web.http.clients import client_key

log = logging.getLogger(__name__)

Versioner = Callable[..., str | None]


def _arena(arena: str = "", slug: str = "", **_: object) -> str | None:
    return arena_version_get(slug=arena or slug)


def _cell(cell: int, **_: object) -> str | None:
    return cell_version_get(pk=cell)


def _site(**_: object) -> str:
    return site_version_get()


def _static(**_: object) -> str:
    # changes only with the release (and the stale age the methodology states)
    return f"static.{freshness.stale_days()}"


# Which version each cacheable page follows, by URL name (the kwargs are the URL's).
PAGE_VERSIONS: dict[str, Versioner] = {
    "home": _site,
    "methodology": _static,
    "recent-changes": _site,
    "recent-changes-feed": _site,
    "arena-detail": _arena,
    "head-to-head": _arena,
    "product-detail": _arena,
    "story-detail": _arena,
    "cell-detail": _cell,
    "api-arena-list": _site,
    "api-arena-detail": _arena,
    "api-arena-matrix": _arena,
    "api-arena-compare": _arena,
    "arena-compare": _arena,
    "api-arena-compare-many": _arena,
    "arena-export-json": _arena,
    "arena-export-csv": _arena,
    "arena-file-schema": _static,
    # llms.txt and the markdown views
    "llms-txt": _site,
    "api-markdown": _static,
    "arena-markdown": _arena,
    "head-to-head-markdown": _arena,
    "cell-markdown": _cell,
    # robots.txt, the sitemap (every arena's products and stories), the icon
    "robots-txt": _static,
    "sitemap-xml": _site,
    "favicon-ico": _static,
    # feeds and badges: an arena's verdict change bumps its content version
    "arena-changes-feed": _arena,
    "product-changes-feed": _arena,
    "product-badge": _arena,
    # the API's OpenAPI document: it changes only with the code
    "api-schema": _static,
}
# Pages that show how old evidence is (a cell turns stale at midnight with no write): their keys and
# ETags carry today's date too (stories/freshness.py), so each day renders them anew.
DATED_VERSIONERS = frozenset({_arena, _cell})
# Pages for one person only (a reporter's flag status, reached through a secret link).
PRIVATE_PAGES = frozenset({"flag-status"})

# Request headers a page's content depends on besides its URL (htmx asks for fragments; the API
# negotiates its format). Responses carry them in ``Vary``; the cache keys on them.
HTMX_HEADERS = ("HX-Request", "HX-Target", "HX-Boosted", "HX-History-Restore-Request")
API_HEADERS = ("Accept",)


@dataclass(frozen=True)
class Param:
    """A query parameter a page reads. ``kept``: whether a page asked with this value may be stored
    (a value from a short, known list); a page asked with any other value is rendered for the
    request and not kept, so made-up values cannot fill the cache. ``many``: every value is read
    (``getlist``), in order; otherwise only the last one, as ``QueryDict.get`` reads it.
    ``canon``: the one spelling of the values the page reads alike. ``blank``: whether an empty
    value says something (else it is the same as no value, and dropped)."""

    name: str
    kept: Callable[[str], bool] = lambda value: False
    many: bool = False
    canon: Callable[[str], str] = lambda value: value
    blank: bool = False


def _one_of(*values: str) -> Callable[[str], bool]:
    allowed = frozenset(values)
    return lambda value: value in allowed


def _product_list(value: str) -> bool:
    """Two or three products, comma-separated, each once, in the form the site's links write: kept
    when the page answers 200 (every one a product of the arena; a made-up one is a 400, which is
    never kept), so the comparisons kept are the arena's ordered picks of two or three and nothing
    else: P(n, 2) + P(n, 3), about 25,000 for 30 products. Larger picks (up to six) are rendered
    for each request: their orderings (4·10⁸ for 30 products) would be no bound at all."""
    slugs = value.split(",")
    return (
        COMPARE_MIN <= len(slugs) <= min(COMPARE_MAX, COMPARE_KEPT)
        and len(set(slugs)) == len(slugs)
        and all(SLUG.fullmatch(slug) for slug in slugs)
    )


def _page_number(value: str) -> bool:
    return value.isascii() and value.isdigit() and 1 <= int(value) <= PAGE_NUMBER_KEPT


# The largest comparison kept in the page cache (the bound above).
COMPARE_KEPT = 3
# A list's pages beyond this one are rendered, not kept (the last page answers for any higher one).
PAGE_NUMBER_KEPT = 50
SLUG = re.compile(r"[-a-zA-Z0-9_]+")
PRODUCTS = Param("products", _product_list, many=True)
VERDICT = Param("verdict", _one_of(*Verdict.values))
DIFF = Param("diff", _one_of("1"))
# The parameters each page reads, by URL name, in their canonical order (the order of the site's own
# forms and links). Nothing else reaches the view: another parameter is dropped (a full page is
# redirected to the address without it; see Query). A page not named here reads none.
PAGE_PARAMS: dict[str, tuple[Param, ...]] = {
    "arena-detail": (
        Param("persona"),
        Param("category"),
        VERDICT,
        Param("q"),
        # (every spelling of "on" filters alike, and the page's links write "1")
        Param("stale", _one_of("1"), canon=lambda v: "1" if v.strip().lower() in STALE_ON else v),
        Param("sort"),
        Param("rank", _one_of(RANK_PA, RANK_VERIFIED, RANK_INTEGRITY)),
        Param("show", many=True),
        Param("fold", many=True),
        # (an empty ``weights=``, the panel's reset, is not the same as none)
        Param("weights", blank=True),
    ),
    "head-to-head": (
        Param("a"),
        Param("b"),
        DIFF,
        Param("open", _one_of("all")),
    ),
    "arena-compare": (PRODUCTS, DIFF),
    "recent-changes": (Param("page", _page_number),),
    "api-arena-detail": (Param("weights", blank=True),),
    "api-arena-compare-many": (PRODUCTS,),
}
# Parameters read by the start of their name (the weights panel's ``w-<key>`` fields, which the
# arena page turns into the shareable ``?weights=`` address): passed on, never kept.
PAGE_PARAM_PREFIXES: dict[str, tuple[str, ...]] = {"arena-detail": ("w-",)}
# The query parameter that picks an API format (DRF's URL_FORMAT_OVERRIDE): its values are the
# formats the view offers.
FORMAT_PARAM = "format"


@dataclass(frozen=True)
class Query:
    """What a request's query string is to the page cache: the parameters the page reads in their
    canonical order and spelling (the last value of a parameter read once, every value of a list),
    whether a page asked so may be kept, and whether the request sent parameters the page does not
    read (``unknown``: a full page is then redirected to the address without them; the same
    parameters in another order or spelling are answered with the canonical page)."""

    pairs: tuple[tuple[str, str], ...]
    kept: bool
    unknown: bool

    @property
    def text(self) -> str:
        # ``:`` and ``,`` as the site's own links write them (``?weights=a:3,b:0``)
        return parse.urlencode(self.pairs, safe=":,")

    @classmethod
    def of(cls, request: HttpRequest, url_name: str, match: ResolverMatch) -> Query:
        params = PAGE_PARAMS.get(url_name, ())
        renderers = _renderers(match)
        if renderers:
            formats = [r.format for r in renderers if r.format]
            params = (*params, Param(FORMAT_PARAM, _one_of(*formats)))
        query = request.GET
        pairs: list[tuple[str, str]] = []
        kept = True
        for param in params:
            if param.name not in query:
                continue
            values = query.getlist(param.name)
            values = [param.canon(v) for v in (values if param.many else values[-1:])]
            values = [v for v in values if v or param.blank]
            if len(values) > 1:  # (a list in the repeated spelling: read, not kept)
                kept = False
            for value in values:
                pairs.append((param.name, value))
                kept = kept and (value == "" or param.kept(value))
        prefixes = PAGE_PARAM_PREFIXES.get(url_name, ())
        if prefixes:
            for name in sorted(k for k in query if k.startswith(prefixes)):
                pairs.append((name, query.getlist(name)[-1]))
                kept = False
        read = {p.name for p in params}
        unknown = any(k not in read and not (prefixes and k.startswith(prefixes)) for k in query)
        return cls(pairs=tuple(pairs), kept=kept, unknown=unknown)

    def apply(self, request: HttpRequest) -> None:
        """Let the view see only this query (so whatever it renders is the page of this key)."""
        text = self.text
        if text != request.META.get("QUERY_STRING", ""):
            request.META["QUERY_STRING"] = text
            request.GET = QueryDict(text)


def _renderers(match: ResolverMatch) -> list:
    """The renderers a DRF view offers (none for a plain Django view)."""
    view_class = getattr(match.func, "cls", None)
    classes = getattr(view_class, "renderer_classes", None)
    return [r() for r in classes] if classes else []


_negotiation = DefaultContentNegotiation()


def _api_variant(request: HttpRequest, match: ResolverMatch) -> str:
    """The format DRF will answer in, from ``Accept`` and ``?format=``: one of the few the view
    offers (with JSON's indent, the one media-type parameter that changes the body), or ``none``
    when it will refuse (a 404 or 406, never kept)."""
    renderers = _renderers(match)
    probe = SimpleNamespace(query_params=request.GET, META=request.META, headers=request.headers)
    try:
        renderer, media_type = _negotiation.select_renderer(
            probe, renderers, match.kwargs.get("format")
        )
    except APIException:
        return "none"
    indent = renderer.get_indent(media_type, {}) if hasattr(renderer, "get_indent") else None
    return f"{renderer.format}:{renderer.media_type}:{indent or ''}"


def _partial(htmx: HtmxDetails) -> bool:
    """What the pages call a fragment request (web.views.pages._htmx_partial)."""
    return bool(htmx) and not htmx.boosted and not htmx.history_restore_request


def _arena_variant(request: HttpRequest, htmx: HtmxDetails) -> str:
    if not _partial(htmx):
        return "full"
    target = htmx.target or ""
    if target.startswith("mx-cat-"):  # any collapsed category's link: the same rows answer
        return "mx-cat"
    return target if target in ("leaderboard", "matrix") else "other"


def _head_to_head_variant(request: HttpRequest, htmx: HtmxDetails) -> str:
    opened = request.GET.get("open", "")
    if bool(htmx) and opened.isdigit() and htmx.target == f"why-{opened}":
        return "why"  # one round's cards
    return "part" if _partial(htmx) else "full"


def _fragment_variant(request: HttpRequest, htmx: HtmxDetails) -> str:
    return "part" if _partial(htmx) else "full"


# The pages whose answer depends on htmx's headers, and the few variants each serves (every other
# value of those headers is one of these).
HTMX_VARIANTS: dict[str, Callable[[HttpRequest, HtmxDetails], str]] = {
    "arena-detail": _arena_variant,
    "head-to-head": _head_to_head_variant,
    "arena-compare": _fragment_variant,
}


def page_variant(request: HttpRequest, url_name: str, match: ResolverMatch) -> str:
    """Which of the page's variants the request asks for (after ``Query.apply``)."""
    if request.path_info.startswith("/api/"):
        return _api_variant(request, match)
    variant = HTMX_VARIANTS.get(url_name)
    return variant(request, HtmxDetails(request)) if variant else ""


# Statuses a shared cache may keep; anything else (a 400 with a message, a 429, a 5xx) is no-store.
PUBLIC_STATUSES = frozenset({200, 203, 204, 301, 302, 304, 307, 308, 404, 410})
# Content worth compressing when stored.
COMPRESSIBLE = _lazy_re_compile(r"^(text/|application/(json|xml|atom\+xml|rss\+xml|javascript))")
ACCEPTS_GZIP = re.compile(r"\bgzip\b")
# Headers not stored with a page: per response, or set by this middleware when serving it.
UNSTORED_HEADERS = frozenset({"content-length", "content-encoding", "set-cookie", "etag", "date"})
# What the stampede lock waits for at most before rendering anyway (a crashed renderer).
LOCK_SECONDS = 10.0
POLL_SECONDS = 0.02

_release: str | None = None


def release() -> str:
    """What the deployed code and templates look like: part of every key and ETag, so a deploy
    never serves pages rendered by the old code. ``RELEASE`` in the environment overrides it."""
    global _release
    if _release is None:
        _release = settings.RELEASE or _code_digest()
    return _release


def _code_digest() -> str:
    digest = hashlib.blake2b(digest_size=6)
    base = Path(settings.BASE_DIR)
    for folder in ("arena", "products", "stories", "flags", "templates", "static"):
        for path in sorted((base / folder).rglob("*")):
            if (
                path.suffix in (".py", ".html", ".css", ".js", ".txt", ".md", ".svg", ".json")
                and path.is_file()
            ):
                digest.update(str(path.relative_to(base)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def _meta_name(header: str) -> str:
    return "HTTP_" + header.upper().replace("-", "_")


def cache_control() -> str:
    """The ``Cache-Control`` of a public page (settings ``CACHE_MAX_AGE``, ``CACHE_S_MAXAGE``,
    ``CACHE_STALE_WHILE_REVALIDATE``)."""
    return (
        f"public, max-age={settings.CACHE_MAX_AGE}, s-maxage={settings.CACHE_S_MAXAGE}, "
        f"stale-while-revalidate={settings.CACHE_STALE_WHILE_REVALIDATE}"
    )


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


def _storable(response: HttpResponseBase, *, streamed: bool = False) -> bool:
    """Whether a response is the same for everybody and may be kept and shared (``streamed``: once
    its stream has been sent whole)."""
    if response.status_code != 200 or response.streaming != streamed or response.cookies:
        return False
    vary = {v.strip().lower() for v in response.get("Vary", "").split(",")}
    control = response.get("Cache-Control", "").lower()
    return "cookie" not in vary and "private" not in control and "no-store" not in control


@dataclass(frozen=True)
class PageIdentity:
    """Which cached page a request asks for: its ETag, its key in the ``pages`` cache, and the
    request headers it varies on."""

    etag: str
    key: str
    vary: tuple[str, ...]

    @classmethod
    def of(
        cls,
        request: HttpRequest,
        version: str,
        *,
        dated: bool = True,
        match: ResolverMatch | None = None,
    ) -> PageIdentity:
        """``dated``: the page shows evidence ages, so it is a new page each day. The key names the
        route (URL name and arguments), the parameters the page reads (``PAGE_PARAMS``, canonical)
        and the variant it serves (``page_variant``): no other part of the request makes a new key."""
        if dated:  # (and the age after which evidence is stale, a setting)
            version = f"{version}.{freshness.today():%Y%m%d}.{freshness.stale_days()}"
        match = match or resolve(request.path_info)
        url_name = match.url_name or ""
        vary = API_HEADERS if request.path_info.startswith("/api/") else HTMX_HEADERS
        # the host and scheme too: feeds and canonical links are absolute URLs (a host is one
        # whatever its case or trailing dot; ALLOWED_HOSTS bounds how many there are)
        host, port = split_domain_port(request.get_host())
        variant = "\n".join(
            [
                request.scheme or "",
                f"{host}:{port}",
                settings.SITE_URL,  # (canonical links name it when set)
                url_name,
                *(f"{k}={v}" for k, v in sorted(match.kwargs.items())),
                Query.of(request, url_name, match).text,
                page_variant(request, url_name, match),
            ]
        )
        digest = hashlib.blake2b(variant.encode(), digest_size=8).hexdigest()
        return cls(
            etag=f'W/"{release()}.{version}.{digest}"',
            key=f"page:{release()}:{version}:{digest}",
            vary=vary,
        )


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


class PageCacheMiddleware:
    def __init__(self, get_response):
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
        page_id = PageIdentity.of(
            request, version, dated=versioner in DATED_VERSIONERS, match=match
        )
        if _matches(request, page_id.etag):
            return self._not_modified(page_id)
        if not settings.PAGE_CACHE:
            response = self._render(request, page_id.vary)
            return self._finish(request, response, etag=page_id.etag)
        page = self.recent.get(page_id.key) or (self.cache.get(page_id.key) if query.kept else None)
        if page is None:
            if not query.kept:  # a value the cache does not keep pages for (a search, weights...)
                if limited := self._over_miss_limit(request):
                    return limited
                response = self._render(request, page_id.vary)
                return self._finish(request, response, etag=page_id.etag)
            page, response = self._render_once(request, page_id)
            if page is None:  # not the same for everybody (or not a 200): as it is
                return self._finish(request, response, etag=page_id.etag)
        self.recent.put(page_id.key, page)
        return page.response(request, page_id.etag)

    # -- rendering a miss
    def _render(self, request: HttpRequest, vary: tuple[str, ...]) -> HttpResponseBase:
        response = self.get_response(request)
        patch_vary_headers(response, vary)
        if _storable(response) and "Cache-Control" not in response:
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
        if not holder:
            deadline = time.monotonic() + LOCK_SECONDS
            while time.monotonic() < deadline:
                time.sleep(POLL_SECONDS)
                page = self.cache.get(key)
                if page is not None:
                    return page, HttpResponse()
                if not self.cache.has_key(lock):  # the holder stored nothing (not storable)
                    break
        release = holder
        try:
            if limited := self._over_miss_limit(request):
                return None, limited
            response = self._render(request, page_id.vary)
            if _storable(response, streamed=True):
                # sent as it is made (a large export), and kept once it has been sent whole
                response["Cache-Control"] = response.get("Cache-Control") or cache_control()
                content = response.streaming_content  # type: ignore[attr-defined]
                kept = _Kept(self.cache, response, content, key, lock if holder else None)
                response.streaming_content = kept  # type: ignore[attr-defined]
                release = False  # (the stream lets it go)
                return None, response
            if not _storable(response):
                return None, response
            page = Page.of(response)  # type: ignore[arg-type]  # a 200, not streaming
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
        if response.streaming:
            if etag is not None and response.status_code == 200:
                response["ETag"] = etag
            if request.method == "HEAD":
                # made whole (and so kept, when it may be) to say how long it is
                content = response.streaming_content  # type: ignore[attr-defined]
                length = sum(len(chunk) for chunk in content)
                response.streaming_content = []  # type: ignore[attr-defined]
                response["Content-Length"] = str(length)
            return response
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


class _Kept:
    """A streamed response's chunks, passed on as they come; the whole body is stored as the page
    once the last chunk has gone (a client that leaves early stores nothing), and then the
    stampede lock (when this render holds it) is let go, so that requests waiting for the same
    export get the stored one instead of rendering it again."""

    def __init__(self, cache, response: HttpResponseBase, content: Iterable[bytes], key, lock):
        self.cache, self.key, self.lock = cache, key, lock
        self.status = response.status_code
        self.headers = list(response.items())
        self.content = content

    def __iter__(self):
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
