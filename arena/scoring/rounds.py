"""Comparing 2-6 products: a round per story two cells apply to; better verdict, then quality."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Self

from arena.scoring.tally import CellIn, ProductKey, StoryIn, is_applicable, verdict_strength

DRAWN = "drawn"

COMPARE_MIN = 2  # products a comparison shows side by side
COMPARE_MAX = 6


def round_winner(a: CellIn, b: CellIn) -> ProductKey:
    """``a.product``, ``b.product`` or ``"drawn"``."""
    sa, sb = verdict_strength(a.verdict, a.quality), verdict_strength(b.verdict, b.quality)
    if sa == sb:
        return DRAWN
    return a.product if sa > sb else b.product


class BestOf:
    """A round read by the products with the best cell on it (none: drawn)."""

    best: Sequence[object]

    @property
    def drawn(self) -> bool:
        return not self.best

    @property
    def shared(self) -> bool:
        """Several products, not all of the competing ones, tie for the best cell."""
        return len(self.best) > 1


@dataclass(frozen=True)
class ManyRound(BestOf):
    story_id: int
    weight: int
    competing: tuple[ProductKey, ...]  # the products whose cells apply, in the order given
    best: tuple[ProductKey, ...]  # the products with the best cell, in that order; () drawn


@dataclass(frozen=True)
class ManyStanding:
    product: ProductKey
    best: int  # rounds in which it alone has the best cell
    shared: int  # rounds in which it ties with others for the best cell (not all of them)
    weighted: int  # Σ weights of the rounds it is best in, alone or shared


@dataclass(frozen=True)
class ManySummary:
    products: tuple[ProductKey, ...]
    rounds: tuple[ManyRound, ...]
    standings: dict[ProductKey, ManyStanding]  # by product, in the order given
    drawn: int  # rounds in which every competing cell ties

    @classmethod
    def of(cls, rounds: Sequence[ManyRound], products: Sequence[ProductKey]) -> Self:
        """Some rounds of a comparison (a category's, say) counted as ``compare_many`` counts."""
        rounds = tuple(rounds)
        standings = {
            p: ManyStanding(
                product=p,
                best=sum(1 for r in rounds if r.best == (p,)),
                shared=sum(1 for r in rounds if r.shared and p in r.best),
                weighted=sum(r.weight for r in rounds if p in r.best),
            )
            for p in products
        }
        return cls(tuple(products), rounds, standings, sum(1 for r in rounds if r.drawn))

    @property
    def sides(self) -> tuple[ManyStanding, ...]:
        """The standings in the order given (a head-to-head's ``a`` and ``b``)."""
        return tuple(self.standings.values())


def compare_many(
    stories: Sequence[StoryIn], cells: Iterable[CellIn], products: Sequence[ProductKey]
) -> ManySummary:
    """A round per story where at least two cells apply: the best share it; all equal: drawn."""
    by_story: dict[int, dict[ProductKey, CellIn]] = {}
    for c in cells:
        if c.product in products:
            by_story.setdefault(c.story_id, {})[c.product] = c
    rounds = []
    for s in stories:
        row = by_story.get(s.id, {})
        competing = [p for p in products if p in row and is_applicable(row[p])]
        if len(competing) < COMPARE_MIN:
            continue
        strength = {p: verdict_strength(row[p].verdict, row[p].quality) for p in competing}
        top = max(strength.values())
        best = tuple(p for p in competing if strength[p] == top)
        drawn = len(best) == len(competing)
        rounds.append(ManyRound(s.id, s.weight, tuple(competing), () if drawn else best))
    return ManySummary.of(rounds, products)
