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
class SearchHit:
    kind: str  # "arena", "product" or "story"
    title: str
    arena_slug: str
    arena_name: str
    slug: str = ""  # a product's slug
    pk: int = 0  # a story's number
    text: str = ""  # an arena's description


@dataclass(frozen=True)
class SearchResults:
    arenas: list[SearchHit]
    products: list[SearchHit]
    stories: list[SearchHit]

    @property
    def count(self) -> int:
        return len(self.arenas) + len(self.products) + len(self.stories)


def _postgres() -> bool:
    return connection.vendor == "postgresql"


def _matching[M: (Arena, Product, Story)](
    queryset: QuerySet[M], words: list[str], fields: tuple[str, ...], text: str
) -> QuerySet[M]:
    """The rows matching every word: full-text on PostgreSQL (ranked), else ``icontains``."""
    if _postgres():
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
    arenas = _matching(Arena.objects.all(), words, ("name", "slug", "description"), text)
    products = _matching(
        Product.objects.select_related("arena"), words, ("name", "slug", "tier"), text
    )
    stories = _matching(Story.objects.select_related("arena"), words, ("text",), text)
    return SearchResults(
        arenas=[
            SearchHit("arena", a.name, a.slug, a.name, text=a.description)
            for a in arenas[:SEARCH_LIMIT]
        ],
        products=[
            SearchHit("product", p.name, p.arena.slug, p.arena.name, slug=p.slug)
            for p in products[:SEARCH_LIMIT]
        ],
        stories=[
            SearchHit("story", s.text, s.arena.slug, s.arena.name, pk=s.pk)
            for s in stories[:SEARCH_LIMIT]
        ],
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
