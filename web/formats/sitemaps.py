"""The sitemap's sections, each one query across every arena; ``lastmod`` is the day of the
scores, else the arena's ``updated``."""

from __future__ import annotations

from datetime import date, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.sitemaps import Sitemap
from django.urls import reverse

from arena.models import Arena
from arena.selectors.arenas import documented_pairs
from products.models import Product
from stories.models import Story

if TYPE_CHECKING:  # (the sites framework is not installed: the request's host is the site)
    from django.contrib.sites.models import Site
    from django.contrib.sites.requests import RequestSite

Lastmod = date | None


def _lastmod(computed: datetime | None, updated: date | None) -> Lastmod:
    # a date either way: Django compares the items' lastmods, and a datetime is no date
    return computed.date() if computed else updated


class SiteSitemap(Sitemap):
    def get_protocol(self, protocol: str | None = None) -> str:
        if settings.SITE_URL:
            return urlsplit(settings.SITE_URL).scheme
        return super().get_protocol(protocol)

    def get_domain(self, site: Site | RequestSite | None = None) -> str:
        if settings.SITE_URL:
            return urlsplit(settings.SITE_URL).netloc
        return super().get_domain(site)


class PagesSitemap(SiteSitemap):
    def items(self) -> list[str]:
        return ["home", "methodology", "recent-changes"]

    def location(self, item: str) -> str:
        return reverse(item)


class _RowSitemap(SiteSitemap):
    """Rows of the URL's arguments, then their ``lastmod``."""

    url_name: str

    def location(self, item: tuple[Any, ...]) -> str:
        return reverse(self.url_name, args=item[:-1])

    def lastmod(self, item: tuple[Any, ...]) -> Lastmod:
        return item[-1]


class ArenaSitemap(_RowSitemap):
    url_name = "arena-detail"

    def items(self) -> list[tuple[Any, ...]]:
        rows = Arena.objects.order_by("name").values_list("slug", "scores_computed_at", "updated")
        return [
            (slug, page, _lastmod(computed, updated))
            for slug, computed, updated in rows
            for page in (self.url_name, "arena-disputes")
        ]

    def location(self, item: tuple[Any, ...]) -> str:
        return reverse(item[1], args=[item[0]])


def _in_arena_rows(model: type[Product] | type[Story], key: str) -> list[tuple[str, Any, Lastmod]]:
    rows = model.objects.order_by("arena__name", "position").values_list(
        "arena__slug", key, "arena__scores_computed_at", "arena__updated"
    )
    return [(arena, value, _lastmod(c, u)) for arena, value, c, u in rows]


class ProductSitemap(_RowSitemap):
    url_name = "product-detail"

    def items(self) -> list[tuple[Any, ...]]:
        return _in_arena_rows(Product, "slug")


class StorySitemap(_RowSitemap):
    url_name = "story-detail"

    def items(self) -> list[tuple[Any, ...]]:
        return _in_arena_rows(Story, "pk")


class HeadToHeadSitemap(_RowSitemap):
    url_name = "head-to-head"

    def items(self) -> list[tuple[Any, ...]]:
        return [
            (arena.slug, a.slug, b.slug, _lastmod(arena.scores_computed_at, arena.updated))
            for arena, a, b in documented_pairs()
        ]


SECTIONS: dict[str, type[Sitemap] | Sitemap] = {
    "pages": PagesSitemap,
    "arenas": ArenaSitemap,
    "products": ProductSitemap,
    "stories": StorySitemap,
    "head-to-heads": HeadToHeadSitemap,
}
