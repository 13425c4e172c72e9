"""Site search (full-text on PostgreSQL, else word by word), the home's pickers, 404 hints."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import reduce
from operator import or_

from django.contrib.postgres.search import SearchQuery, SearchRank, SearchVector
from django.db import connection
from django.db.models import Q, QuerySet

from arena.models import Arena
from products.models import Product
from stories.models import Story

SEARCH_LIMIT = 20  # results of each kind: a search is a way in, not a listing


@dataclass(frozen=True)
class SearchResults:
    arenas: list[Arena]
    products: list[Product]  # each with its arena
    stories: list[Story]  # each with its arena

    @property
    def count(self) -> int:
        return len(self.arenas) + len(self.products) + len(self.stories)


def _matching[M: (Arena, Product, Story)](
    queryset: QuerySet[M], fields: tuple[str, ...], text: str
) -> list[M]:
    if connection.vendor == "postgresql":
        query = SearchQuery(text, search_type="websearch", config="english")
        rank = SearchRank(SearchVector(*fields, config="english"), query)
        queryset = queryset.annotate(rank=rank).filter(rank__gt=0).order_by("-rank", "pk")
    else:
        for word in text.split():
            queryset = queryset.filter(
                reduce(or_, (Q(**{f"{f}__icontains": word}) for f in fields))
            )
        queryset = queryset.order_by("pk")
    return list(queryset[:SEARCH_LIMIT])


def site_search(text: str) -> SearchResults:
    """What ``text`` finds, at most SEARCH_LIMIT of each kind: three queries."""
    products = Product.objects.select_related("arena")
    stories = Story.objects.select_related("arena")
    return SearchResults(
        arenas=_matching(Arena.objects.all(), ("name", "slug", "description"), text),
        products=_matching(products, ("name", "slug", "tier"), text),
        stories=_matching(stories, ("text",), text),
    )


def arena_product_choices(*, arenas: Iterable[int]) -> dict[int, list[tuple[str, str]]]:
    """These arenas' products as (slug, name) in column order, by arena id: one query."""
    choices: dict[int, list[tuple[str, str]]] = {}
    rows = Product.objects.filter(arena__in=list(arenas)).order_by("arena_id", "position", "pk")
    for arena_id, slug, name in rows.values_list("arena_id", "slug", "name"):
        choices.setdefault(arena_id, []).append((slug, name))
    return choices


@dataclass(frozen=True)
class Known:
    arenas: list[tuple[str, str]]  # (slug, name)
    products: list[tuple[str, str, str]]  # (arena slug, slug, name)
    stories: list[tuple[int, str]]  # of one arena: (number, text)


def known_pages(*, arena: str = "") -> Known:
    """Arenas and products, and the stories of ``arena`` if given: a 404's suggestions."""
    products = Product.objects.order_by("arena__name", "position")
    stories = Story.objects.filter(arena__slug=arena).order_by("position") if arena else None
    return Known(
        list(Arena.objects.order_by("name").values_list("slug", "name")),
        list(products.values_list("arena__slug", "slug", "name")),
        list(stories.values_list("pk", "text")) if stories is not None else [],
    )
