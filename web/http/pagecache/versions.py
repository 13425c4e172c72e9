"""Which content version each cacheable page follows (``PAGE_VERSIONS``), the release every key and
ETag names, and the ``Cache-Control`` of a public page."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from django.conf import settings

from arena.selectors.versions import arena_version_get, cell_version_get, site_version_get
from stories import freshness

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
    # the search's results name arenas, products and stories: any arena's change bumps the site's
    "search": _site,
    "methodology": _static,
    "recent-changes": _site,
    "recent-changes-feed": _site,
    "arena-detail": _arena,
    "head-to-head": _arena,
    "product-detail": _arena,
    "story-detail": _arena,
    "cell-detail": _cell,
    "arena-sources": _arena,
    # an arena's disputes: a flag filed or decided bumps its content version
    "arena-disputes": _arena,
    "arena-disputes-json": _arena,
    "arena-disputes-feed": _arena,
    # the verification queue: read from the stored close calls, which a recompute bumps
    "arena-verify": _arena,
    "arena-verify-json": _arena,
    "api-arena-list": _site,
    "api-arena-detail": _arena,
    "api-arena-matrix": _arena,
    "api-arena-compare": _arena,
    "arena-compare": _arena,
    "arena-must-have": _arena,
    "api-arena-compare-many": _arena,
    "arena-export-json": _arena,
    "arena-export-csv": _arena,
    "arena-file-schema": _static,
    "published-schema": _static,
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
    # every package whose code can change a page (the wiring and settings too), its templates
    for folder in ("arena", "products", "stories", "flags", "web", "config", "templates", "static"):
        for path in sorted((base / folder).rglob("*")):
            if (
                path.suffix in (".py", ".html", ".css", ".js", ".txt", ".md", ".svg", ".json")
                and path.is_file()
            ):
                digest.update(str(path.relative_to(base)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_control() -> str:
    """The ``Cache-Control`` of a public page (settings ``CACHE_MAX_AGE``, ``CACHE_S_MAXAGE``,
    ``CACHE_STALE_WHILE_REVALIDATE``)."""
    return (
        f"public, max-age={settings.CACHE_MAX_AGE}, s-maxage={settings.CACHE_S_MAXAGE}, "
        f"stale-while-revalidate={settings.CACHE_STALE_WHILE_REVALIDATE}"
    )
