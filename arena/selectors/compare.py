"""Two to six products side by side (two: a head-to-head): their stored scores and a round per
story, decided from their cells by ``arena.scoring.compare_many`` (the one scoring on this read)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.models import Source
from arena.scoring.certainty import Ranged, pair_call
from arena.scoring.rounds import (
    COMPARE_MAX,
    COMPARE_MIN,
    BestOf,
    ManyRound,
    ManyStanding,
    ManySummary,
    compare_many,
)
from arena.scoring.tally import ProductKey, StoryIn
from arena.selectors.arenas import CountedArena, arena_story_list
from arena.selectors.calls import ranged_of
from arena.selectors.cells import cell_in, cited_sources, with_evidence
from arena.selectors.leaderboard import arena_score_list
from arena.selectors.matrix import CategoryBlock, MatrixRow, arena_matrix, matrix_block_list
from products.models import Product
from stories.models import Cell, Story

# Over this many rounds a head-to-head's cards load per opened round (all at once delay a phone).
HEAD_TO_HEAD_INLINE = 12
# Over this many rounds only the first category's (and an asked one's) are written; the others
# link to theirs, so the page stays small however large the arena.
HEAD_TO_HEAD_ROWS = 200


def compare_pick(*, products: list[Product], slugs: list[str]) -> tuple[list[Product], str]:
    """The ``products`` ``slugs`` name, in order, and what keeps them from being compared ("")."""
    by_slug = {p.slug: p for p in products}
    slugs = list(dict.fromkeys(slugs))
    found = [by_slug[s] for s in slugs if s in by_slug]
    unknown = [s for s in slugs if s not in by_slug]
    if unknown:
        names = ", ".join(repr(s[:40]) for s in unknown[:3]) + (" …" if len(unknown) > 3 else "")
        return (
            found,
            f"No product {names} in this arena. Pick {COMPARE_MIN} to {COMPARE_MAX} from the list.",
        )
    if len(found) < COMPARE_MIN:
        return found, f"Pick at least {COMPARE_MIN} products to compare."
    if len(found) > COMPARE_MAX:
        return found, f"Pick at most {COMPARE_MAX} products to compare ({len(found)} picked)."
    return found, ""


@dataclass
class CompareRow(MatrixRow, BestOf):
    cells: list[Any]  # ``CellLine``s; a head-to-head's: ``Cell``s with their quotes
    best: list[Product]  # the products with the best cell (none: drawn)
    number: int = 0  # place in its sub-group, from 1, as the published pages number rounds

    @property
    def winner(self) -> Product | None:
        """The one product with the best cell, else ``None`` (a head-to-head's round)."""
        return self.best[0] if len(self.best) == 1 else None


@dataclass(frozen=True)
class Standing(ManyStanding):
    """A product's column of the summary: its part of the rounds and its stored scores."""

    category_scores: dict[str, int | None]
    ranged: Ranged  # its PA Score with its range

    pa_score = property(lambda self: self.ranged.score)


@dataclass(kw_only=True)
class Comparison:
    products: list[Product]  # the columns, in the order asked
    summary: ManySummary  # over every round
    standings: dict[Product, Standing]  # in column order
    categories: list[str]  # the categories' names in matrix order
    rows: list[CompareRow]  # every round, in matrix order
    blocks: list[CategoryBlock]  # the rounds shown, under their headings
    tallies: dict[int, ManySummary]  # by category pk, over all its rounds
    differences_only: bool = False  # drawn rounds are not shown
    shown: int = 0
    leader: Product | None = None  # the product that leads every other by the one rule
    sources: dict[str, Source] = field(default_factory=dict)  # what the published detail cites

    a = property(lambda self: self.products[0])  # a head-to-head's two sides
    b = property(lambda self: self.products[1])
    round_count = property(lambda self: len(self.rows))
    drawn = property(lambda self: self.summary.drawn)
    hidden = property(lambda self: len(self.rows) - self.shown)

    @property
    def won(self) -> dict[Product, int]:
        return {p: s.best for p, s in self.standings.items()}

    @property
    def weighted(self) -> dict[Product, int]:
        return {p: s.weighted for p, s in self.standings.items()}

    @property
    def rounds_leader(self) -> Product | None:
        """More rounds won, weighted, then counted; ``None`` when level."""
        counts = {p: (s.weighted, s.best) for p, s in self.standings.items()}
        top = [p for p, c in counts.items() if c == max(counts.values())]
        return top[0] if len(top) == 1 else None


def _stories_and_cells(
    arena: CountedArena, products: list[Product], evidence: bool
) -> tuple[list[Story], list[Any]]:
    if not evidence:
        matrix = arena_matrix(arena=arena, products=products)
        return [r.story for r in matrix.rows], [c for r in matrix.rows for c in r.cells]
    by_pk = {p.pk: p for p in products}
    found = Cell.objects.filter(story__arena=arena, product__in=list(by_pk)).with_backing()
    cells = list(found.prefetch_related(with_evidence()).order_by())
    for cell in cells:
        cell.product = by_pk[cell.product_id]
    return list(arena_story_list(arena=arena)), cells


def comparison_get(
    *,
    arena: CountedArena,
    products: list[Product],
    differences_only: bool = False,
    evidence: bool = False,
) -> Comparison:
    """``products`` side by side: stored scores, and a round per story two of their cells judge;
    ``evidence``: the cells in full with their quotes and the sources they cite (a head-to-head)."""
    stories, cells = _stories_and_cells(arena, products, evidence)
    by_pk: dict[ProductKey, Product] = {p.pk: p for p in products}
    keys = list(by_pk)
    read = [StoryIn(s.pk, s.weight, s.category.name, s.persona.slug) for s in stories]
    summary = compare_many(read, map(cell_in, cells), keys)
    story_of = {s.pk: s for s in stories}
    cell_of = {(c.story_id, c.product_id): c for c in cells}
    rows = [
        CompareRow(
            story_of[r.story_id],
            [cell_of[k] for p in keys if (k := (r.story_id, p)) in cell_of],
            [by_pk[k] for k in r.best],
        )
        for r in summary.rounds
    ]
    by_category: dict[int, list[ManyRound]] = {}
    for r in summary.rounds:
        by_category.setdefault(story_of[r.story_id].category_id, []).append(r)
    for block in matrix_block_list(rows=rows):  # each round numbered within its sub-group
        for group in block.groups:
            for number, row in enumerate(group.rows, start=1):
                row.number = number
    shown = [r for r in rows if not r.drawn] if differences_only else rows
    stored = {s.product_id: s for s in arena_score_list(arena=arena)}
    standings = {
        p: Standing(
            **vars(summary.standings[p.pk]),
            category_scores=dict(score.category_scores) if (score := stored.get(p.pk)) else {},
            ranged=ranged_of(score, p.pk),
        )
        for p in products
    }
    called = [
        (p, [pair_call(s.ranged, o.ranged) for o in standings.values() if o is not s])
        for p, s in standings.items()
    ]
    return Comparison(
        products=list(products),
        summary=summary,
        standings=standings,
        categories=list(dict.fromkeys(s.category.name for s in stories)),
        rows=rows,
        blocks=matrix_block_list(rows=shown),
        tallies={pk: ManySummary.of(rs, keys) for pk, rs in by_category.items()},
        differences_only=differences_only,
        shown=len(shown),
        leader=next((p for p, calls in called if all(c.leader == p.pk for c in calls)), None),
        sources=cited_sources(arena_id=arena.pk, cells=cells) if evidence else {},
    )
