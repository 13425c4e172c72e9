"""Reads: querysets and plain structures with their joins in place, a constant number of queries
whatever the arena's size. Pages and the API read stored scores from here; nothing is scored here
except head-to-head rounds (``arena.scoring.compare``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count, OuterRef, Prefetch, Subquery
from django.http import Http404

from arena import scoring
from arena.models import AdjacentArena, Arena, PersonaResult, ProductScore
from products.models import Product
from stories.models import Cell, Evidence, Story


def arena_list():
    """Arenas with product and story counts and the leader's name (one query)."""
    leader = ProductScore.objects.filter(arena=OuterRef("pk"), rank=1).values("product__name")[:1]
    leader_slug = ProductScore.objects.filter(arena=OuterRef("pk"), rank=1).values("product__slug")[:1]
    return Arena.objects.annotate(
        product_count=Count("products", distinct=True),
        story_count=Count("stories", distinct=True),
        leader_name=Subquery(leader),
        leader_slug=Subquery(leader_slug),
    ).order_by("name")


def arena_get(slug: str) -> Arena:
    arena = arena_list().filter(slug=slug).first()
    if arena is None:
        raise Http404(f"No arena {slug!r}")
    return arena


def arena_products(arena: Arena) -> list[Product]:
    return list(Product.objects.filter(arena=arena).order_by("position"))


def arena_scores(arena: Arena) -> list[ProductScore]:
    """Stored leaderboard rows in rank order, with product and head-to-head partner."""
    return list(
        ProductScore.objects.filter(arena=arena).select_related("product", "vs").order_by("rank")
    )


def arena_persona_results(arena: Arena) -> list[PersonaResult]:
    return list(
        PersonaResult.objects.filter(arena=arena)
        .select_related("persona", "winner", "runner_up")
        .order_by("position")
    )


def arena_adjacent(arena: Arena) -> list[AdjacentArena]:
    return list(AdjacentArena.objects.filter(arena=arena).order_by("position"))


def arena_stories(arena: Arena):
    return (
        Story.objects.filter(arena=arena)
        .select_related("category", "subgroup", "persona")
        .order_by("position")
    )


@dataclass
class MatrixRow:
    story: Story
    cells: list[Cell]  # in product column order; None-free


@dataclass
class MatrixGroup:
    category: object
    subgroup: object | None
    rows: list[MatrixRow] = field(default_factory=list)


def arena_matrix(arena: Arena, products: list[Product] | None = None, stories=None) -> list[MatrixRow]:
    """Every story with its cells in column order: two queries."""
    products = products if products is not None else arena_products(arena)
    stories = list(stories if stories is not None else arena_stories(arena))
    cells: dict[tuple[int, int], Cell] = {
        (c.story_id, c.product_id): c
        for c in Cell.objects.filter(story__arena=arena).only(
            "id", "story_id", "product_id", "verdict", "proof", "quality"
        )
    }
    return [
        MatrixRow(story=s, cells=[cells[(s.pk, p.pk)] for p in products if (s.pk, p.pk) in cells])
        for s in stories
    ]


def group_rows(rows: list[MatrixRow]) -> list[MatrixGroup]:
    """Consecutive rows of one category and sub-group form one table, as on the published page."""
    groups: list[MatrixGroup] = []
    for row in rows:
        key = (row.story.category_id, row.story.subgroup_id)
        if not groups or (groups[-1].category.pk, getattr(groups[-1].subgroup, "pk", None)) != key:
            groups.append(MatrixGroup(row.story.category, row.story.subgroup))
        groups[-1].rows.append(row)
    return groups


def product_get(arena: Arena, slug: str) -> Product:
    product = Product.objects.filter(arena=arena, slug=slug).first()
    if product is None:
        raise Http404(f"No product {slug!r} in {arena.slug}")
    return product


@dataclass
class CompareRow:
    story: Story
    number: int
    round: str  # product slug or "drawn"
    cell_a: Cell
    cell_b: Cell


@dataclass
class Comparison:
    a: Product
    b: Product
    summary: scoring.CompareSummary
    rows: list[CompareRow]

    @property
    def groups(self) -> list[tuple[object, object, list[CompareRow]]]:
        out: list[tuple[object, object, list[CompareRow]]] = []
        for row in self.rows:
            key = (row.story.category, row.story.subgroup)
            if not out or (out[-1][0].pk, getattr(out[-1][1], "pk", None)) != (
                key[0].pk,
                getattr(key[1], "pk", None),
            ):
                out.append((key[0], key[1], []))
            out[-1][2].append(row)
        return out


def evidence_prefetch() -> Prefetch:
    return Prefetch("evidence", queryset=Evidence.objects.order_by("position"))


def comparison(arena: Arena, a: Product, b: Product) -> Comparison:
    """A vs B built from cells (not from stored pages): four queries."""
    stories = list(arena_stories(arena))
    cells = (
        Cell.objects.filter(story__arena=arena, product__in=[a, b])
        .prefetch_related(evidence_prefetch())
    )
    by = {(c.story_id, c.product_id): c for c in cells}

    def plain(c: Cell) -> scoring.CellIn:
        return scoring.CellIn(c.story_id, c.product_id, c.verdict, c.proof, c.quality)

    story_in = [scoring.StoryIn(s.pk, s.weight, s.category.name, s.persona.slug) for s in stories]
    cells_a = {sid: plain(c) for (sid, pid), c in by.items() if pid == a.pk}
    cells_b = {sid: plain(c) for (sid, pid), c in by.items() if pid == b.pk}
    summary = scoring.compare(story_in, cells_a, cells_b, a.pk, b.pk)
    story_by_id = {s.pk: s for s in stories}
    rows: list[CompareRow] = []
    number = 0
    prev_key = None
    for rnd in summary.rounds:
        story = story_by_id[rnd.story_id]
        key = (story.category_id, story.subgroup_id)
        number = number + 1 if key == prev_key else 1
        prev_key = key
        winner = rnd.winner
        round_slug = "drawn" if winner == scoring.DRAWN else (a.slug if winner == a.pk else b.slug)
        rows.append(CompareRow(story, number, round_slug, by[(story.pk, a.pk)], by[(story.pk, b.pk)]))
    return Comparison(a, b, summary, rows)


def cell_get(pk: int) -> Cell:
    cell = (
        Cell.objects.select_related(
            "story__arena", "story__category", "story__subgroup", "story__persona", "product"
        )
        .prefetch_related(evidence_prefetch())
        .filter(pk=pk)
        .first()
    )
    if cell is None:
        raise Http404(f"No cell {pk}")
    return cell
