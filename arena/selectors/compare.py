"""Two to six products side by side: their stored scores and a round per story, decided from the
matrix's cells by ``arena.scoring.compare_many`` (the one scoring on this read)."""

from __future__ import annotations

from dataclasses import dataclass

from arena.scoring.certainty import Ranged, pair_call
from arena.scoring.rounds import (
    COMPARE_MAX,
    COMPARE_MIN,
    BestOf,
    ManyRound,
    ManySummary,
    compare_many,
)
from arena.scoring.tally import ProductKey, StoryIn
from arena.selectors.arenas import CountedArena
from arena.selectors.calls import ranged_of
from arena.selectors.cells import cell_in
from arena.selectors.leaderboard import arena_score_list
from arena.selectors.matrix import MatrixRow, Rounds, arena_matrix, matrix_block_list
from products.models import Product


@dataclass(frozen=True)
class ComparePick:
    products: list[Product]  # those found, in the order asked
    unknown: list[str]  # the slugs that name none
    error: str  # "" when they can be compared

    @property
    def ok(self) -> bool:
        return not self.error


def compare_pick(*, products: list[Product], slugs: list[str]) -> ComparePick:
    """The ``products`` ``slugs`` name, in order, and what keeps them from being compared."""
    by_slug = {p.slug: p for p in products}
    slugs = list(dict.fromkeys(slugs))
    found = [by_slug[s] for s in slugs if s in by_slug]
    unknown = [s for s in slugs if s not in by_slug]
    error = ""
    if unknown:
        names = ", ".join(repr(s[:40]) for s in unknown[:3]) + (" …" if len(unknown) > 3 else "")
        error = (
            f"No product {names} in this arena. Pick {COMPARE_MIN} to {COMPARE_MAX} from the list."
        )
    elif len(found) < COMPARE_MIN:
        error = f"Pick at least {COMPARE_MIN} products to compare."
    elif len(found) > COMPARE_MAX:
        error = f"Pick at most {COMPARE_MAX} products to compare ({len(found)} picked)."
    return ComparePick(found, unknown, error)


@dataclass
class ManyRow(MatrixRow, BestOf):
    best: list[Product]  # the products with the best cell (none: drawn)


@dataclass
class Standing:
    """A product's column of the summary: its stored scores and its part of the rounds."""

    product: Product
    pa_score: int | None
    category_scores: dict[str, int | None]
    best: int  # rounds it alone is best in
    shared: int  # rounds it shares the best in
    weighted: int  # Σ weights of the rounds it is best in, alone or shared
    ranged: Ranged  # its PA Score with its range


@dataclass(kw_only=True)
class ManyComparison(Rounds[ManySummary]):
    products: list[Product]  # the columns, in the order asked
    standings: dict[Product, Standing]  # in column order
    categories: list[str]  # the categories' names in matrix order
    rows: list[ManyRow]
    leader: Product | None = None  # the product that leads every other by the one rule


def compare_many_get(
    *, arena: CountedArena, products: list[Product], differences_only: bool = False
) -> ManyComparison:
    """``products`` side by side: stored scores, and a round per story two of their cells judge."""
    matrix = arena_matrix(arena=arena, products=products)
    keys = [p.pk for p in products]
    stories = [
        StoryIn(r.story.pk, r.story.weight, r.story.category.name, r.story.persona.slug)
        for r in matrix.rows
    ]
    cells = (cell_in(c) for r in matrix.rows for c in r.cells)
    summary = compare_many(stories, cells, keys)
    by_pk: dict[ProductKey, Product] = {p.pk: p for p in products}
    row_of = {r.story.pk: r for r in matrix.rows}
    rows = [
        ManyRow(row_of[r.story_id].story, row_of[r.story_id].cells, [by_pk[k] for k in r.best])
        for r in summary.rounds
    ]
    stored = {s.product_id: s for s in arena_score_list(arena=arena)}
    standings = {}
    for p in products:
        score, mine = stored.get(p.pk), summary.standings[p.pk]
        standings[p] = Standing(
            product=p,
            pa_score=score.pa_score if score else None,
            category_scores=dict(score.category_scores) if score else {},
            best=mine.best,
            shared=mine.shared,
            weighted=mine.weighted,
            ranged=ranged_of(score, p.pk),
        )
    by_category: dict[int, list[ManyRound]] = {}
    for r in summary.rounds:
        by_category.setdefault(row_of[r.story_id].story.category_id, []).append(r)
    shown = [r for r in rows if not r.drawn] if differences_only else rows
    called = [
        (p, [pair_call(s.ranged, o.ranged) for o in standings.values() if o is not s])
        for p, s in standings.items()
    ]
    leader = next((p for p, calls in called if all(c.leader == p.pk for c in calls)), None)
    return ManyComparison(
        products=list(products),
        summary=summary,
        standings=standings,
        categories=list(dict.fromkeys(r.story.category.name for r in matrix.rows)),
        rows=rows,
        blocks=matrix_block_list(rows=shown),
        tallies={pk: ManySummary.of(rs, keys) for pk, rs in by_category.items()},
        differences_only=differences_only,
        shown=len(shown),
        leader=leader,
    )
