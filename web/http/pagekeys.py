"""Which cached page a request asks for: its content version, ``Query`` and ``PageIdentity``."""

from __future__ import annotations

import functools
import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, cast

from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.http import HttpRequest, QueryDict
from django.http.request import split_domain_port
from django.urls import ResolverMatch, resolve
from django_htmx.middleware import HtmxDetails
from rest_framework.exceptions import APIException
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request

from arena import cachetags
from arena.models import Arena, CacheEpoch
from arena.selectors.versions import arena_version_get, cell_version_get, site_version_get
from arena.signals import pages_changed
from core.release import code_digest
from stories import freshness
from web import params

# Request headers a page depends on besides its URL: responses name them in ``Vary``, keys read them.
HTMX_HEADERS = ("HX-Request", "HX-Target", "HX-Boosted", "HX-History-Restore-Request")

# The content each cacheable page follows, by URL name (static pages change with the release).
SITE_PAGES = """home search recent-changes recent-changes-feed api-arena-list llms-txt sitemap-xml
""".split()
ARENA_PAGES = """arena-detail head-to-head product-detail story-detail arena-sources arena-compare
    arena-must-have arena-disputes arena-disputes-json arena-disputes-feed arena-verify
    arena-verify-json arena-export-json arena-export-csv api-arena-detail api-arena-matrix
    api-arena-compare api-arena-compare-many arena-markdown head-to-head-markdown
    arena-changes-feed product-changes-feed product-badge arena-sitemap""".split()
STATIC_PAGES = """methodology arena-file-schema published-schema api-markdown robots-txt
    favicon-ico api-schema sitemap-pages""".split()
PAGE_VERSIONS = {
    **dict.fromkeys(SITE_PAGES, "site"),
    **dict.fromkeys(ARENA_PAGES, "arena"),
    **dict.fromkeys(["cell-detail", "cell-markdown"], "cell"),
    **dict.fromkeys(STATIC_PAGES, "static"),
}
READERS: dict[str, Callable[[Any], str | None]] = {
    "site": lambda _: site_version_get(),
    "arena": lambda slug: arena_version_get(slug=slug),
    "cell": lambda pk: cell_version_get(pk=pk),
}

# How long a process reuses a content version it read (never with an HTTP cache to purge).
VERSION_SECONDS = 1.0
VERSIONS: dict[tuple[str, object], tuple[float, str | None]] = {}


def content_version(kind: str, kwargs: dict[str, object]) -> str | None:
    """The version a page of ``kind`` with the URL's ``kwargs`` shows; None: no such arena or cell."""
    if kind == "static":  # (and the stale age the methodology states)
        return f"static.{freshness.stale_days()}"
    ref = kwargs.get("cell") if kind == "cell" else kwargs.get("arena") or kwargs.get("slug", "")
    now = time.monotonic()
    found = VERSIONS.get((kind, ref))
    if found is None or now - found[0] >= VERSION_SECONDS or settings.HTTP_CACHE_PURGE_URLS:
        if len(VERSIONS) > 10_000:  # made-up addresses must not grow it without end
            VERSIONS.clear()
        found = VERSIONS[kind, ref] = (now, READERS[kind](ref))
    return found[1]


def forget_versions(**_: object) -> None:
    """Now, for this transaction's own reads, and again once it commits (a read in between)."""
    VERSIONS.clear()
    transaction.on_commit(VERSIONS.clear)


# (here, not in an AppConfig: the page cache that reads the versions imports this module)
pages_changed.connect(forget_versions, dispatch_uid="pagekeys-versions")
for _model in (Arena, CacheEpoch):  # a new or deleted arena, a restore's new epoch
    post_save.connect(forget_versions, sender=_model, dispatch_uid="pagekeys-versions")
    post_delete.connect(forget_versions, sender=_model, dispatch_uid="pagekeys-versions")


# everything that shapes a page (the kept reads' own key follows their code only: arena_kept)
SHAPING = ("core", "arena", "products", "stories", "flags", "web", "config", "templates", "static")


@functools.cache
def release() -> str:
    """``RELEASE``, else a digest of the code and templates: in every key, so a deploy renders anew."""
    return code_digest(SHAPING)


def cache_control() -> str:
    return (
        f"public, max-age={settings.CACHE_MAX_AGE}, s-maxage={settings.CACHE_S_MAXAGE}, "
        f"stale-while-revalidate={settings.CACHE_STALE_WHILE_REVALIDATE}"
    )


@dataclass(frozen=True)
class Query:
    """The parameters the page reads in canonical order and spelling."""

    pairs: tuple[tuple[str, str], ...]
    kept: bool  # values from short known lists only
    unknown: bool  # other parameters were sent

    @property
    def text(self) -> str:
        return params.query_string(self.pairs).removeprefix("?")

    @classmethod
    def of(cls, request: HttpRequest, url_name: str, match: ResolverMatch) -> Query:
        read = params.PAGE_PARAMS.get(url_name, ())
        if renderers := _renderers(match):
            read = (*read, params.format_param(r.format for r in renderers if r.format))
        query = request.GET
        pairs: list[tuple[str, str]] = []
        kept = True
        for param in (p for p in read if p.name in query):
            values = query.getlist(param.name)
            values = [param.canon(v) for v in (values if param.many else values[-1:])]
            values = [v for v in values if v or param.blank]
            kept = kept and len(values) < 2  # (a list in the repeated spelling: read, not kept)
            for value in values:
                pairs.append((param.name, value))
                kept = kept and (value == "" or param.kept(value))
        prefixes = params.PAGE_PARAM_PREFIXES.get(url_name, ())  # (none: no name starts with ())
        for name in sorted(k for k in query if k.startswith(prefixes)):
            pairs.append((name, query.getlist(name)[-1]))
            kept = False
        names = {p.name for p in read}
        unknown = any(k not in names and not k.startswith(prefixes) for k in query)
        return cls(pairs=tuple(pairs), kept=kept, unknown=unknown)

    def apply(self, request: HttpRequest) -> None:
        """Let the view see only this query (what it renders is the page of this key)."""
        if (text := self.text) != request.META.get("QUERY_STRING", ""):
            request.META["QUERY_STRING"] = text
            request.GET = QueryDict(text)


def _renderers(match: ResolverMatch) -> list[BaseRenderer]:
    classes = getattr(getattr(match.func, "cls", None), "renderer_classes", None)
    return [r() for r in classes] if classes else []


def page_variant(request: HttpRequest, url_name: str, match: ResolverMatch) -> str:
    """The API's format as DRF will negotiate it (``none``: refused), else the htmx fragment asked."""
    if request.path_info.startswith("/api/"):
        # (what DRF's negotiation reads of its Request: the view has not made one yet)
        req = SimpleNamespace(query_params=request.GET, META=request.META, headers=request.headers)
        try:
            renderer, media_type = DefaultContentNegotiation().select_renderer(
                cast(Request, req), _renderers(match), match.kwargs.get("format")
            )
        except APIException:
            return "none"
        indent = renderer.get_indent(media_type, {}) if hasattr(renderer, "get_indent") else None
        return f"{renderer.format}:{renderer.media_type}:{indent or ''}"
    htmx = HtmxDetails(request)
    if url_name == "head-to-head":
        opened = params.opened_round(request.GET)
        if bool(htmx) and opened is not None and htmx.target == f"why-{opened}":
            return "why"  # one round's cards
    if url_name not in HTMX_PAGES or not params.fragment_asked(htmx):
        return "full"
    target = htmx.target or ""
    if url_name != "arena-detail":
        return "part"
    if target.startswith(params.CATEGORY_TARGET):  # any category's link: the same rows answer
        return "mx-cat"
    return target if target in ("leaderboard", "matrix") else "other"


HTMX_PAGES = frozenset({"arena-detail", "head-to-head", "arena-compare", "arena-disputes"})


def surrogate_keys(version: str, kwargs: dict[str, Any], arena_or_cell: bool) -> str:
    """The content a page shows, so that the HTTP cache in front drops exactly what a change touches."""
    if not arena_or_cell:  # (the site's version, or a static one)
        return cachetags.STATIC if version.startswith("static.") else cachetags.SITE
    arena_id = version.split("-", 1)[0]  # (``<arena id>-<version>``)
    tags = [cachetags.arena_tag(arena_id)]
    if "story" in kwargs:
        tags.append(cachetags.story_tag(str(kwargs["story"])))
    if "cell" in kwargs:
        tags.append(cachetags.cell_tag(str(kwargs["cell"])))
    tags += [
        cachetags.product_tag(arena_id, str(kwargs[n]))
        for n in ("product", "a", "b")  # a product's pages; the two of a head-to-head
        if n in kwargs
    ]
    return cachetags.header_value(tags)


@dataclass(frozen=True)
class PageIdentity:
    etag: str
    key: str
    vary: tuple[str, ...]
    tags: str  # its Surrogate-Key

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
        """Named by the route, the parameters read and the variant served; ``dated``: daily."""
        match = match or resolve(request.path_info)
        named = version
        if dated:  # (and the age after which evidence is stale, a setting)
            named = f"{version}.{freshness.today():%Y%m%d}.{freshness.stale_days()}"
        url_name = match.url_name or ""
        # the host and scheme too: feeds and canonical links are absolute URLs
        host, port = split_domain_port(request.get_host())
        variant = "\n".join(
            [
                request.scheme or "",
                f"{host}:{port}",
                settings.SITE_URL,
                url_name,
                *(f"{k}={v}" for k, v in sorted(match.kwargs.items())),
                (query or Query.of(request, url_name, match)).text,
                page_variant(request, url_name, match),
            ]
        )
        digest = hashlib.blake2b(variant.encode(), digest_size=8).hexdigest()
        return cls(
            etag=f'W/"{release()}.{named}.{digest}"',
            key=f"page:{release()}:{named}:{digest}",
            vary=("Accept",) if request.path_info.startswith("/api/") else HTMX_HEADERS,
            tags=surrogate_keys(version, match.kwargs, arena_or_cell=dated),
        )
