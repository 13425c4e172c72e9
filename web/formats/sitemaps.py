"""The sitemap's sections, each one query across every arena: items are ``(path, lastmod)``, the
lastmod the day of the scores, else the arena's ``updated``."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from functools import partial
from typing import TYPE_CHECKING

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

Item = tuple[str, date | None]


def _lastmod(computed: datetime | None, updated: date | None) -> date | None:
    # a date either way: Django compares the items' lastmods, and a datetime is no date
    return computed.date() if computed else updated


class Section(Sitemap):
    """One of ``SECTIONS``, made per request (a sitemap keeps its latest lastmod on itself)."""

    def __init__(self, rows: Callable[[], list[Item]]) -> None:
        self.rows = rows

    def items(self) -> list[Item]:
        return self.rows()

    def get_protocol(self, protocol: str | None = None) -> str:
        return settings.SITE_URL.partition("://")[0] or super().get_protocol(protocol)

    def get_domain(self, site: Site | RequestSite | None = None) -> str:
        return settings.SITE_URL.partition("://")[2] or super().get_domain(site)

    def location(self, item: Item) -> str:
        return item[0]

    def lastmod(self, item: Item) -> date | None:
        return item[1]


def pages() -> list[Item]:
    return [(reverse(name), None) for name in ("home", "methodology", "recent-changes")]


def arenas() -> list[Item]:
    rows = Arena.objects.order_by("name").values_list("slug", "scores_computed_at", "updated")
    return [
        (reverse(page, args=[slug]), _lastmod(computed, updated))
        for slug, computed, updated in rows
        for page in ("arena-detail", "arena-disputes")
    ]


def in_arena(model: type[Product] | type[Story], url_name: str, key: str) -> list[Item]:
    """A page per product or story, in the arenas' order, then the matrix's."""
    rows = model.objects.order_by("arena__name", "position").values_list(
        "arena__slug", key, "arena__scores_computed_at", "arena__updated"
    )
    return [(reverse(url_name, args=[a, k]), _lastmod(c, u)) for a, k, c, u in rows]


def head_to_heads() -> list[Item]:
    return [
        (
            reverse("head-to-head", args=[arena.slug, a.slug, b.slug]),
            _lastmod(arena.scores_computed_at, arena.updated),
        )
        for arena, a, b in documented_pairs()
    ]


SECTIONS: dict[str, Callable[[], list[Item]]] = {
    "pages": pages,
    "arenas": arenas,
    "products": partial(in_arena, Product, "product-detail", "slug"),
    "stories": partial(in_arena, Story, "story-detail", "pk"),
    "head-to-heads": head_to_heads,
}
