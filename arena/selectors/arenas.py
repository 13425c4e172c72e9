"""The arenas: the home page's list, one arena, and what its pages read beside the matrix."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import date, datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, cast

from django.conf import settings
from django.core.cache import caches
from django.db.models import (
    Exists,
    OuterRef,
    QuerySet,
    Subquery,
)

from arena.models import (
    AdjacentArena,
    Arena,
    CacheEpoch,
    Category,
    PersonaResult,
    ProductScore,
)
from arena.selectors.counts import row_count
from products.models import Product
from stories.models import Cell, CellChange, Story
from stories.values import Verdict

if TYPE_CHECKING:
    # django-stubs' helper types: a dev dependency, not installed in production
    from django_stubs_ext import WithAnnotations


class ArenaCounts(TypedDict):
    product_count: int
    story_count: int
    # the cells on the pages, counted (not stories × products): an n/a verdict is a judgement too,
    # as the published pages count it ("318 judged cells"); na_count of them say n/a
    cell_count: int
    na_count: int
    # the oldest and newest day a judged cell's evidence was checked (None: no judged cell)
    evidence_oldest: date | None
    evidence_newest: date | None
    # the latest change of one of its verdicts after it was published (an edit, an upheld flag)
    last_change: datetime | None
    leader_name: str | None
    leader_slug: str | None
    # the first's PA Score range and the second's, for who leads (``calls.first_leads``)
    leader_low: int | None
    second_high: int | None
    second_name: str | None


class MaybeSlugged(TypedDict):
    slug: str | None  # None: not an arena of this site


# An arena as ``arena_list`` and ``arena_get`` read it: with its counts and its leader.
type CountedArena = WithAnnotations[Arena, ArenaCounts]
# An adjacent arena with its slug here, if any.
type SluggedAdjacent = WithAnnotations[AdjacentArena, MaybeSlugged]


# the cells on an arena's pages (the outer query's arena)
_judged = Cell.objects.on_pages().filter(story__arena=OuterRef("pk"))


def _newest_or_oldest(order: str) -> Subquery:
    """The first judged cell's day of evidence in ``order`` (its nulls last)."""
    cells = _judged.exclude(verdict=Verdict.NA).filter(evidence_as_of__isnull=False)
    return Subquery(cells.order_by(order).values("evidence_as_of")[:1])


def _judged_counts() -> dict[str, Any]:
    """The judged cells' counts and evidence days, a subquery each."""
    return {
        # the cells themselves, not stories × products: an n/a cell is no judgement of
        # evidence, and a missing cell is none at all
        "cell_count": row_count(_judged, per="story__arena"),
        "na_count": row_count(_judged.filter(verdict=Verdict.NA), per="story__arena"),
        "evidence_oldest": _newest_or_oldest("evidence_as_of"),
        "evidence_newest": _newest_or_oldest("-evidence_as_of"),
    }


def _counted(cell_counts: dict[str, Any]) -> QuerySet[CountedArena]:
    leader = ProductScore.objects.filter(arena=OuterRef("pk"), rank=1)
    second = ProductScore.objects.filter(arena=OuterRef("pk"), rank=2)
    return cast(
        QuerySet[CountedArena],
        # the stored close calls (a large JSON list, decoded with the row) only where they are read
        Arena.objects.defer("close_calls")
        .annotate(
            # the default managers leave out retired products and stories (kept on record only)
            product_count=row_count(Product.objects.filter(arena=OuterRef("pk")), per="arena"),
            story_count=row_count(Story.objects.filter(arena=OuterRef("pk")), per="arena"),
            **cell_counts,
            last_change=Subquery(
                CellChange.objects.filter(cell__story__arena=OuterRef("pk"))
                .exclude(kind=CellChange.Kind.IMPORT)
                .order_by("-changed_at")
                .values("changed_at")[:1]
            ),
            leader_name=Subquery(leader.values("product__name")[:1]),
            leader_slug=Subquery(leader.values("product__slug")[:1]),
            leader_low=Subquery(leader.values("pa_low")[:1]),
            second_high=Subquery(second.values("pa_high")[:1]),
            second_name=Subquery(second.values("product__name")[:1]),
        )
        .order_by("name"),
    )


def arena_list() -> QuerySet[CountedArena]:
    """Arenas with their product, story and judged-cell counts and the leader's name (one
    query)."""
    return _counted(_judged_counts())


# How long an arena's counts are kept (they are used only under the version they were read at:
# this bounds the memory kept, not their truth)
COUNTS_TIMEOUT = 24 * 3600
_COUNTS = tuple(ArenaCounts.__annotations__)


def arena_get(*, slug: str, close_calls: bool = False) -> CountedArena | None:
    """One arena with the counts of ``arena_list`` (the pages read ``story_count``): one query.
    Its counts are kept in the page cache under its content version (with the cache's epoch:
    ids and versions repeat after a restore, the epoch does not), so its pages count them once
    per version: the query after a change reads them with one more. ``close_calls``: with the
    stored close calls (``arena.selectors.settle`` reads them); without, reading
    ``Arena.close_calls`` costs a query of its own."""
    key = f"arena-counts:{hashlib.sha256(slug.encode()).hexdigest()}"  # (any text may come)
    kept = caches["pages"].get(key)  # (the version, the counts) as last read
    arenas = Arena.objects.defer("close_calls") if kept else _counted(_judged_counts())
    arenas = arenas.filter(slug=slug).annotate(
        cache_epoch=Subquery(CacheEpoch.objects.filter(pk=1).values("value"))
    )
    arena = (arenas.defer(None) if close_calls else arenas).first()
    if arena is None:
        return None
    version = (arena.pk, arena.content_version, arena.cache_epoch)
    if not kept:
        counts = {name: getattr(arena, name) for name in _COUNTS}
    elif kept[0] == version:
        counts = kept[1]
    else:
        counts = _counted(_judged_counts()).filter(pk=arena.pk).values(*_COUNTS).get()
    if not kept or kept[0] != version:
        caches["pages"].set(key, (version, counts), COUNTS_TIMEOUT)
    for name in _COUNTS:
        setattr(arena, name, counts[name])
    return cast(CountedArena, arena)


@cache
def _shapes() -> str:
    """What the kept reads look like: the release, else a digest of the models and selectors
    that make them (a deploy that changes them must not unpickle the old shapes)."""
    if settings.RELEASE:
        return settings.RELEASE
    digest = hashlib.blake2b(digest_size=6)
    for app in ("arena", "products", "stories"):
        for path in sorted(Path(settings.BASE_DIR, app).glob("**/*.py")):
            digest.update(path.read_bytes())
    return digest.hexdigest()


def arena_kept[T](arena: Arena, name: str, read: Callable[[], T]) -> T:
    """``read()``, kept in the page cache under the arena's content version (the djangopackages
    grid pattern): an arena's pages read it once per version, whatever their filters, even with
    ``PAGE_CACHE`` off. Keyed as ``arena_get``'s counts (with the cache's epoch); an arena read
    another way (no ``cache_epoch``) reads afresh. ``name`` says what is read and with what."""
    epoch = getattr(arena, "cache_epoch", None)
    if epoch is None:
        return read()
    key = f"arena-part:{_shapes()}:{arena.pk}-{arena.content_version}.{epoch}:{name}"
    return cast(T, caches["pages"].get_or_set(key, read, COUNTS_TIMEOUT))


def arena_product_list(*, arena: Arena) -> list[Product]:
    """The products on the pages, in column order: one query, none while kept
    (``arena_kept``)."""
    return arena_kept(
        arena,
        "products",
        lambda: list(Product.objects.filter(arena=arena).order_by("position")),
    )


def arena_product_pair_get(
    *, arena: Arena, a: str, b: str, products: list[Product] | None = None
) -> dict[str, Product]:
    """The arena's products with slug ``a`` or ``b``, by slug; a slug with no product is not a
    key. ``products``: the arena's product list when the caller has it already (else one
    query)."""
    if products is None:
        products = arena_product_list(arena=arena)
    return {p.slug: p for p in products if p.slug in (a, b)}


def documented_pairs(*, arena: Arena | None = None) -> list[tuple[Arena, Product, Product]]:
    """The head-to-heads the leaderboards link (each product beside its stored rival, both on the
    pages, each pair once whichever side links it), as ``(arena, product, rival)``, arenas by
    name, then in ranking order; of one ``arena`` when given. The pairs the site documents
    (sitemap, llms.txt, Markdown). One query."""
    scores = (
        ProductScore.objects.filter(product__retired_at__isnull=True, vs__retired_at__isnull=True)
        .select_related("arena", "product", "vs")
        .defer("arena__close_calls")
        .order_by("arena__name", "rank", "product__position")
    )
    if arena is not None:
        scores = scores.filter(arena=arena)
    seen: set[tuple[int, frozenset[int | None]]] = set()
    pairs = []
    for row in scores:
        key = (row.arena_id, frozenset((row.product_id, row.vs_id)))
        if row.vs is not None and len(key[1]) == 2 and key not in seen:
            seen.add(key)
            pairs.append((row.arena, row.product, row.vs))
    return pairs


def arena_story_list(*, arena: Arena) -> QuerySet[Story]:
    """The stories on the pages in matrix order, with what a matrix row shows."""
    return (
        Story.objects.filter(arena=arena)
        .select_related("category", "subgroup", "persona")
        .order_by("position")
    )


def arena_category_list(*, arena: Arena) -> list[Category]:
    """The categories that hold a story still on the pages: one query (none while kept)."""
    held = Exists(Story.objects.filter(category=OuterRef("pk")))
    categories = Category.objects.filter(arena=arena).filter(held).order_by("position")
    return arena_kept(arena, "categories", lambda: list(categories))


def arena_persona_result_list(*, arena: Arena) -> list[PersonaResult]:
    """The stored "best by user type" rows, in page order, with persona, winner and runner-up:
    one query (none while kept)."""
    results = PersonaResult.objects.filter(arena=arena)
    rows = results.select_related("persona", "winner", "runner_up").order_by("position")
    return arena_kept(arena, "persona-results", lambda: list(rows))


def arena_adjacent_list(*, arena: Arena) -> list[SluggedAdjacent]:
    """Adjacent arenas, each with ``.slug`` set when that arena is on this site: one query (none
    while kept)."""
    here = Arena.objects.filter(name=OuterRef("name")).values("slug")[:1]
    adjacent = AdjacentArena.objects.filter(arena=arena).annotate(slug=Subquery(here))
    rows = cast(list[SluggedAdjacent], adjacent.order_by("position"))
    return arena_kept(arena, "adjacent", lambda: list(rows))
