"""The arenas: the home page's list, one arena, and what its pages read beside the matrix."""

from __future__ import annotations

from django.db.models import Exists, F, OuterRef, QuerySet, Subquery

from arena.models import AdjacentArena, Arena, Category, PersonaResult, ProductScore
from arena.selectors.counts import row_count
from arena.text import arena_slugify
from products.models import Product
from stories.models import Story


def arena_list() -> QuerySet[Arena]:
    """Arenas with their product, story and judged-cell counts and the leader's name (one
    query)."""
    leader = ProductScore.objects.filter(arena=OuterRef("pk"), rank=1)
    return (
        Arena.objects.annotate(
            # the default managers leave out retired products and stories (kept on record only)
            product_count=row_count(Product.objects.filter(arena=OuterRef("pk")), per="arena"),
            story_count=row_count(Story.objects.filter(arena=OuterRef("pk")), per="arena"),
            leader_name=Subquery(leader.values("product__name")[:1]),
            leader_slug=Subquery(leader.values("product__slug")[:1]),
        )
        # every product is judged on every story: the cells the arena page counts
        .annotate(cell_count=F("story_count") * F("product_count"))
        .order_by("name")
    )


def arena_get(*, slug: str) -> Arena | None:
    """One arena with the counts of ``arena_list`` (the pages read ``story_count``): one query."""
    return arena_list().filter(slug=slug).first()


def arena_product_list(*, arena: Arena) -> list[Product]:
    """The products on the pages, in column order."""
    return list(Product.objects.filter(arena=arena).order_by("position"))


def arena_product_pair_get(*, arena: Arena, a: str, b: str) -> dict[str, Product]:
    """The arena's products with slug ``a`` or ``b``, by slug (one query); a slug with no product
    is not a key."""
    return {p.slug: p for p in Product.objects.filter(arena=arena, slug__in=[a, b])}


def arena_story_list(*, arena: Arena) -> QuerySet[Story]:
    """The stories on the pages in matrix order, with what a matrix row shows."""
    return (
        Story.objects.filter(arena=arena)
        .select_related("category", "subgroup", "persona")
        .order_by("position")
    )


def arena_category_list(*, arena: Arena) -> list[Category]:
    """The categories that hold a story still on the pages, each with ``.slug`` (the matrix's
    ``category`` filter value): one query."""
    categories = list(
        Category.objects.filter(arena=arena)
        .filter(Exists(Story.objects.filter(category=OuterRef("pk"))))
        .order_by("position")
    )
    for c in categories:
        c.slug = arena_slugify(c.name)
    return categories


def arena_persona_result_list(*, arena: Arena) -> list[PersonaResult]:
    """The stored "best by user type" rows, in page order."""
    return list(
        PersonaResult.objects.filter(arena=arena)
        .select_related("persona", "winner", "runner_up")
        .order_by("position")
    )


def arena_adjacent_list(*, arena: Arena) -> list[AdjacentArena]:
    """Adjacent arenas, each with ``.slug`` set when that arena is on this site: two queries."""
    adjacent = list(AdjacentArena.objects.filter(arena=arena).order_by("position"))
    here = dict(
        Arena.objects.filter(name__in=[a.name for a in adjacent]).values_list("name", "slug")
    )
    for a in adjacent:
        a.slug = here.get(a.name)
    return adjacent
