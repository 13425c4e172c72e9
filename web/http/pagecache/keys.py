"""Which cached page a request asks for: the query parameters its page reads (``Query``), the
variant it serves (htmx's fragments, the API's formats: ``page_variant``), and from those and the
version its ETag and key (``PageIdentity``)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import cast

from django.conf import settings
from django.http import HttpRequest, QueryDict
from django.http.request import split_domain_port
from django.urls import ResolverMatch, resolve
from django_htmx.middleware import HtmxDetails
from rest_framework.exceptions import APIException
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request

from stories import freshness
from web import params
from web.http.pagecache.versions import release
from web.params import links

# Request headers a page's content depends on besides its URL (htmx asks for fragments; the API
# negotiates its format). Responses carry them in ``Vary``; the cache keys on them.
HTMX_HEADERS = ("HX-Request", "HX-Target", "HX-Boosted", "HX-History-Restore-Request")
API_HEADERS = ("Accept",)


@dataclass(frozen=True)
class Query:
    """What a request's query string is to the page cache: the parameters the page reads
    (``web.params.PAGE_PARAMS``) in their canonical order and spelling (the last value of a
    parameter read once, every value of a list), whether a page asked so may be kept, and whether
    the request sent parameters the page does not read (``unknown``: a full page is then redirected
    to the address without them; the same parameters in another order or spelling are answered
    with the canonical page)."""

    pairs: tuple[tuple[str, str], ...]
    kept: bool
    unknown: bool

    @property
    def text(self) -> str:
        return links.query_string(self.pairs).removeprefix("?")

    @classmethod
    def of(cls, request: HttpRequest, url_name: str, match: ResolverMatch) -> Query:
        read = params.PAGE_PARAMS.get(url_name, ())
        if renderers := _renderers(match):
            read = (*read, params.format_param(r.format for r in renderers if r.format))
        query = request.GET
        pairs: list[tuple[str, str]] = []
        kept = True
        for param in read:
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
        prefixes = params.PAGE_PARAM_PREFIXES.get(url_name, ())
        if prefixes:
            for name in sorted(k for k in query if k.startswith(prefixes)):
                pairs.append((name, query.getlist(name)[-1]))
                kept = False
        names = {p.name for p in read}
        unknown = any(k not in names and not (prefixes and k.startswith(prefixes)) for k in query)
        return cls(pairs=tuple(pairs), kept=kept, unknown=unknown)

    def apply(self, request: HttpRequest) -> None:
        """Let the view see only this query (so whatever it renders is the page of this key)."""
        text = self.text
        if text != request.META.get("QUERY_STRING", ""):
            request.META["QUERY_STRING"] = text
            request.GET = QueryDict(text)


def _renderers(match: ResolverMatch) -> list[BaseRenderer]:
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
    # (what DRF's negotiation reads of its Request: the view has not made one yet)
    probe = SimpleNamespace(query_params=request.GET, META=request.META, headers=request.headers)
    try:
        renderer, media_type = _negotiation.select_renderer(
            cast(Request, probe), renderers, match.kwargs.get("format")
        )
    except APIException:
        return "none"
    indent = renderer.get_indent(media_type, {}) if hasattr(renderer, "get_indent") else None
    return f"{renderer.format}:{renderer.media_type}:{indent or ''}"


def _arena_variant(request: HttpRequest, htmx: HtmxDetails) -> str:
    if not params.fragment_asked(htmx):
        return "full"
    target = htmx.target or ""
    if target.startswith("mx-cat-"):  # any collapsed category's link: the same rows answer
        return "mx-cat"
    return target if target in ("leaderboard", "matrix") else "other"


def _head_to_head_variant(request: HttpRequest, htmx: HtmxDetails) -> str:
    opened = params.opened_round(request.GET)
    if bool(htmx) and opened is not None and htmx.target == f"why-{opened}":
        return "why"  # one round's cards
    return "part" if params.fragment_asked(htmx) else "full"


def _fragment_variant(request: HttpRequest, htmx: HtmxDetails) -> str:
    return "part" if params.fragment_asked(htmx) else "full"


# The pages whose answer depends on htmx's headers, and the few variants each serves (every other
# value of those headers is one of these).
HTMX_VARIANTS: dict[str, Callable[[HttpRequest, HtmxDetails], str]] = {
    "arena-detail": _arena_variant,
    "head-to-head": _head_to_head_variant,
    "arena-compare": _fragment_variant,
    "arena-disputes": _fragment_variant,
}


def page_variant(request: HttpRequest, url_name: str, match: ResolverMatch) -> str:
    """Which of the page's variants the request asks for (after ``Query.apply``)."""
    if request.path_info.startswith("/api/"):
        return _api_variant(request, match)
    variant = HTMX_VARIANTS.get(url_name)
    return variant(request, HtmxDetails(request)) if variant else ""


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
        query: Query | None = None,
    ) -> PageIdentity:
        """``dated``: the page shows evidence ages, so it is a new page each day. The key names the
        route (URL name and arguments), the parameters the page reads (``PAGE_PARAMS``, canonical)
        and the variant it serves (``page_variant``): no other part of the request makes a new key.
        ``match`` and ``query``: the request's, when the caller has them already."""
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
                (query or Query.of(request, url_name, match)).text,
                page_variant(request, url_name, match),
            ]
        )
        digest = hashlib.blake2b(variant.encode(), digest_size=8).hexdigest()
        return cls(
            etag=f'W/"{release()}.{version}.{digest}"',
            key=f"page:{release()}:{version}:{digest}",
            vary=vary,
        )
