"""The site's search over arenas, products and stories, the home page's product picker, and the
names a missing page's address is matched against (the 404's suggestions).

On PostgreSQL the search is full-text (a search vector computed at query time, ranked); elsewhere
(SQLite) each word must appear in the name or text, case-insensitively. One query per kind."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.contrib.postgres.search import SearchQuery, SearchRank, SearchVector
from django.db import connection
from django.db.models import Q, QuerySet

from arena.models import Arena
from products.models import Product
from stories.models import Story

# At most this many results of each kind (a search is a way in, not a listing).
SEARCH_LIMIT = 20


@dataclass(frozen=True)
class SearchResults:
    arenas: list[Arena]
    products: list[Product]  # each with its arena
    stories: list[Story]  # each with its arena

    @property
    def count(self) -> int:
        return len(self.arenas) + len(self.products) + len(self.stories)


def _matching[M: (Arena, Product, Story)](
    queryset: QuerySet[M], words: list[str], fields: tuple[str, ...], text: str
) -> QuerySet[M]:
    """The rows matching every word: full-text on PostgreSQL (ranked), else ``icontains``."""
    if connection.vendor == "postgresql":
        query = SearchQuery(text, search_type="websearch", config="english")
        vector = SearchVector(*fields, config="english")
        return (
            queryset.annotate(rank=SearchRank(vector, query))
            .filter(rank__gt=0)
            .order_by("-rank", "pk")
        )
    for word in words:
        any_field = Q()
        for field in fields:
            any_field |= Q(**{f"{field}__icontains": word})
        queryset = queryset.filter(any_field)
    return queryset.order_by("pk")


def site_search(text: str) -> SearchResults:
    """The arenas, products and stories a search text finds (at most SEARCH_LIMIT each): three
    queries whatever the site's size."""
    words = text.split()
    arenas = Arena.objects.defer("close_calls")
    products = Product.objects.select_related("arena").defer("arena__close_calls")
    stories = Story.objects.select_related("arena").defer("arena__close_calls")
    return SearchResults(
        arenas=list(_matching(arenas, words, ("name", "slug", "description"), text)[:SEARCH_LIMIT]),
        products=list(_matching(products, words, ("name", "slug", "tier"), text)[:SEARCH_LIMIT]),
        stories=list(_matching(stories, words, ("text",), text)[:SEARCH_LIMIT]),
    )


def arena_product_choices() -> dict[int, list[tuple[str, str]]]:
    """Every arena's products as (slug, name), in column order, by arena id: one query (the home
    page's "X vs Y" pickers)."""
    choices: dict[int, list[tuple[str, str]]] = defaultdict(list)
    rows = Product.objects.order_by("arena_id", "position", "pk").values_list(
        "arena_id", "slug", "name"
    )
    for arena_id, slug, name in rows:
        choices[arena_id].append((slug, name))
    return dict(choices)


@dataclass(frozen=True)
class Known:
    """What the site has pages for, for a 404's suggestions: arenas (slug, name), products
    (arena slug, slug, name) and, of one arena, its stories (number, text)."""

    arenas: list[tuple[str, str]]
    products: list[tuple[str, str, str]]
    stories: list[tuple[int, str]]


def known_pages(*, arena: str = "") -> Known:
    """Arenas and products (two queries), and the stories of ``arena`` if given (one more)."""
    arenas = list(Arena.objects.order_by("name").values_list("slug", "name"))
    products = list(
        Product.objects.order_by("arena__name", "position").values_list(
            "arena__slug", "slug", "name"
        )
    )
    stories: list[tuple[int, str]] = []
    if arena:
        stories = list(
            Story.objects.filter(arena__slug=arena).order_by("position").values_list("pk", "text")
        )
    return Known(arenas, products, stories)
