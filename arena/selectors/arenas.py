"""The arenas: the home page's list, one arena, and what its pages read beside the matrix."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from datetime import date, datetime
from functools import cache
from typing import TYPE_CHECKING, TypedDict, cast

from django.core.cache import caches
from django.db.models import Count, Exists, IntegerField, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce

from arena.models import AdjacentArena, Arena, CacheEpoch, Category, PersonaResult, ProductScore
from core.release import code_digest
from products.models import Product
from stories.models import Cell, CellChange, Story
from stories.values import Verdict

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations  # a dev dependency, not installed in production


class ArenaCounts(TypedDict):
    product_count: int
    story_count: int
    cell_count: int  # the cells on the pages (an n/a verdict is a judgement too)
    na_count: int  # those of them that say n/a
    evidence_oldest: date | None  # the oldest day a judged cell's evidence was checked
    evidence_newest: date | None  # and the newest
    last_change: datetime | None  # the latest edit or upheld flag of one of its verdicts
    leader_name: str | None
    leader_slug: str | None
    leader_low: int | None  # the first's PA Score range and the second's: who leads
    second_high: int | None
    second_name: str | None


type CountedArena = WithAnnotations[Arena, ArenaCounts]

KEPT_TIMEOUT = 24 * 3600  # a read is only used under its version: this bounds memory, not truth
_COUNTS = tuple(ArenaCounts.__annotations__)


def row_count(queryset: QuerySet, *, per: str) -> Coalesce:
    """How many rows of ``queryset`` (on an ``OuterRef``) each outer row has, as one subquery."""
    counted = queryset.order_by().values(per).annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)


def _counted() -> QuerySet[CountedArena]:
    """Arenas with their counts and leader, each counted in one query (``arena_counted``)."""
    judged = Cell.objects.on_pages().filter(story__arena=OuterRef("pk"))
    dated = judged.exclude(verdict=Verdict.NA).filter(evidence_as_of__isnull=False)
    leader = ProductScore.objects.filter(arena=OuterRef("pk"), rank=1)
    second = ProductScore.objects.filter(arena=OuterRef("pk"), rank=2)
    changes = CellChange.objects.filter(cell__story__arena=OuterRef("pk"))
    return cast(
        QuerySet[CountedArena],
        Arena.objects.annotate(
            # the default managers leave out retired products and stories
            product_count=row_count(Product.objects.filter(arena=OuterRef("pk")), per="arena"),
            story_count=row_count(Story.objects.filter(arena=OuterRef("pk")), per="arena"),
            cell_count=row_count(judged, per="story__arena"),
            na_count=row_count(judged.filter(verdict=Verdict.NA), per="story__arena"),
            evidence_oldest=Subquery(dated.order_by("evidence_as_of").values("evidence_as_of")[:1]),
            evidence_newest=Subquery(
                dated.order_by("-evidence_as_of").values("evidence_as_of")[:1]
            ),
            last_change=Subquery(
                changes.exclude(kind=CellChange.Kind.IMPORT)
                .order_by("-changed_at")
                .values("changed_at")[:1]
            ),
            leader_name=Subquery(leader.values("product__name")[:1]),
            leader_slug=Subquery(leader.values("product__slug")[:1]),
            leader_low=Subquery(leader.values("pa_low")[:1]),
            second_high=Subquery(second.values("pa_high")[:1]),
            second_name=Subquery(second.values("product__name")[:1]),
        ),
    )


def arena_list() -> QuerySet[Arena]:
    """The arenas by name, uncounted (``arena_counted`` counts the ones shown)."""
    epoch = Subquery(CacheEpoch.objects.filter(pk=1).values("value"))
    return Arena.objects.annotate(cache_epoch=epoch).order_by("name")


def arena_counted(*, arenas: Iterable[Arena]) -> list[CountedArena]:
    """``arenas`` with their counts, each kept per its content version (one query for the rest)."""
    arenas = list(arenas)
    keys = {
        a.pk: f"arena-listed:{a.pk}:{a.content_version}:{getattr(a, 'cache_epoch', None)}"
        for a in arenas
    }
    kept = caches["pages"].get_many(list(keys.values()))
    if missing := [pk for pk, key in keys.items() if key not in kept]:
        counted = {c.pop("pk"): c for c in _counted().filter(pk__in=missing).values("pk", *_COUNTS)}
        fresh = {keys[pk]: counts for pk, counts in counted.items()}
        caches["pages"].set_many(fresh, KEPT_TIMEOUT)
        kept.update(fresh)
    for arena in arenas:
        for name, value in kept[keys[arena.pk]].items():
            setattr(arena, name, value)
    return cast(list[CountedArena], arenas)


def arena_get(*, slug: str) -> CountedArena | None:
    """One arena with its counts, kept per content version (under its slug): one query."""
    key = f"arena-counts:{hashlib.sha256(slug.encode()).hexdigest()}"  # (any text may come)
    kept = caches["pages"].get(key)  # (version, counts)
    epoch = Subquery(CacheEpoch.objects.filter(pk=1).values("value"))
    arenas = (Arena.objects if kept else _counted()).filter(slug=slug).annotate(cache_epoch=epoch)
    arena = arenas.first()
    if arena is None:
        return None
    version, names = (arena.pk, arena.content_version, arena.cache_epoch), _COUNTS
    if not kept:
        counts = {name: getattr(arena, name) for name in names}
    elif kept[0] != version:
        counts = _counted().filter(pk=arena.pk).values(*names).get()
    else:
        counts = kept[1]
    if not kept or kept[0] != version:
        caches["pages"].set(key, (version, counts), KEPT_TIMEOUT)
    for name in names:
        setattr(arena, name, counts[name])
    return cast(CountedArena, arena)


@cache
def _shapes() -> str:
    """The release, else a digest of the code that shapes the kept reads (not the templates)."""
    return code_digest(("core", "arena", "products", "stories"), suffixes=(".py",))


def arena_kept[T](arena: Arena, name: str, read: Callable[[], T]) -> T:
    """``read()``, kept in the page cache under the arena's content version and cache epoch."""
    epoch = getattr(arena, "cache_epoch", None)
    if epoch is None:  # (no epoch row: a database never migrated, as in most tests)
        return read()
    key = f"arena-part:{_shapes()}:{arena.pk}-{arena.content_version}.{epoch}:{name}"
    return cast(T, caches["pages"].get_or_set(key, read, KEPT_TIMEOUT))


def arena_product_list(*, arena: Arena) -> list[Product]:
    """The products on the pages, in column order (kept)."""
    return arena_kept(
        arena, "products", lambda: list(Product.objects.filter(arena=arena).order_by("position"))
    )


def arena_product_pair_get(
    *, arena: Arena, a: str, b: str, products: list[Product] | None = None
) -> dict[str, Product]:
    products = arena_product_list(arena=arena) if products is None else products
    return {p.slug: p for p in products if p.slug in (a, b)}


def documented_pairs(*, arena: Arena | None = None) -> list[tuple[Arena, Product, Product]]:
    """The head-to-heads the leaderboards link, each once, as ``(arena, product, rival)``."""
    scores = (
        ProductScore.objects.filter(product__retired_at__isnull=True, vs__retired_at__isnull=True)
        .select_related("arena", "product", "vs")
        .order_by("arena__name", "rank", "product__position")
    )
    if arena is not None:
        scores = scores.filter(arena=arena)
    pairs: dict[tuple[int, frozenset[int]], tuple[Arena, Product, Product]] = {}
    for row in scores:
        if row.vs is not None and row.vs_id != row.product_id:
            key = (row.arena_id, frozenset((row.product_id, row.vs.pk)))
            pairs.setdefault(key, (row.arena, row.product, row.vs))
    return list(pairs.values())


def arena_story_list(*, arena: Arena) -> QuerySet[Story]:
    """The stories on the pages in matrix order, with what a matrix row shows."""
    stories = Story.objects.filter(arena=arena).select_related("category", "subgroup", "persona")
    return stories.order_by("position")


def arena_category_list(*, arena: Arena) -> list[Category]:
    """The categories that hold a story on the pages (kept)."""

    def read() -> list[Category]:  # (a query is built only when it is read)
        held = Exists(Story.objects.filter(category=OuterRef("pk")))
        return list(Category.objects.filter(arena=arena).filter(held).order_by("position"))

    return arena_kept(arena, "categories", read)


def arena_persona_result_list(*, arena: Arena) -> list[PersonaResult]:
    """The stored "best by user type" rows in page order (kept)."""

    def read() -> list[PersonaResult]:
        results = PersonaResult.objects.filter(arena=arena)
        return list(results.select_related("persona", "winner", "runner_up").order_by("position"))

    return arena_kept(arena, "persona-results", read)


def arena_adjacent_list(*, arena: Arena) -> list[AdjacentArena]:
    """Adjacent arenas, each with ``.slug`` when that arena is on this site, else None (kept)."""

    def read() -> list[AdjacentArena]:
        here = Arena.objects.filter(name=OuterRef("name")).values("slug")[:1]
        adjacent = AdjacentArena.objects.filter(arena=arena).annotate(slug=Subquery(here))
        return list(adjacent.order_by("position"))

    return arena_kept(arena, "adjacent", read)
