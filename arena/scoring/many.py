"""A comparison of several products (two to six): a round per story where at least two of their
cells apply, the products with the best cell sharing it; for two products exactly the
head-to-head's rounds (``rounds.compare``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena.scoring.tally import CellIn, ProductKey, StoryIn, is_applicable
from stories.values import VERDICT_ORDER, Verdict

# At most this many products side by side on one comparison (at least two).
COMPARE_MIN = 2
COMPARE_MAX = 6


def _cell_strength(cell: CellIn) -> tuple[int, int]:
    """How a cell competes in a round: its verdict (full > partial > disputed > none), then its
    quality, as ``round_winner`` decides a pair."""
    return (VERDICT_ORDER[Verdict(cell.verdict)], cell.quality or 0)


class BestOf:
    """A round of a comparison of several products, by the products with the best cell on it
    (``best``; none when every competing cell ties). The rules' ``ManyRound`` and the pages' rows
    of it (``selectors.compare.ManyRow``) both read their outcome this way."""

    best: Sequence[object]

    @property
    def drawn(self) -> bool:
        """Every competing cell ties: nobody is best."""
        return not self.best

    @property
    def shared(self) -> bool:
        """Several products, not all of the competing ones, tie for the best cell."""
        return len(self.best) > 1


@dataclass(frozen=True)
class ManyRound(BestOf):
    """One story of a comparison of several products: a round when at least two of their cells
    apply (the n/a ones sit out)."""

    story_id: int
    weight: int
    competing: tuple[ProductKey, ...]  # the products whose cells apply, in the order given
    best: tuple[ProductKey, ...]  # the products with the best cell, in that order; () drawn


@dataclass(frozen=True)
class ManyStanding:
    """One product's part of a comparison of several."""

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


def many_round(
    story: StoryIn, cells: dict[ProductKey, CellIn], products: Sequence[ProductKey]
) -> ManyRound | None:
    """One story as a round among ``products`` (their cells on it by product), or None when fewer
    than two of their cells apply: the best verdict wins, then the higher quality; products tied
    for the best share it; when every competing cell ties the round is drawn."""
    competing = [p for p in products if (c := cells.get(p)) is not None and is_applicable(c)]
    if len(competing) < COMPARE_MIN:
        return None
    strength = {p: _cell_strength(cells[p]) for p in competing}
    top = max(strength.values())
    best = tuple(p for p in competing if strength[p] == top)
    return ManyRound(
        story.id, story.weight, tuple(competing), () if len(best) == len(competing) else best
    )


def tally_many_rounds(rounds: Sequence[ManyRound], products: Sequence[ProductKey]) -> ManySummary:
    """The tally of some of a comparison's rounds (a category's, say), as ``compare_many`` counts
    all of them: per product the rounds it is best in alone, shared, and their weights."""
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
    return ManySummary(
        products=tuple(products),
        rounds=rounds,
        standings=standings,
        drawn=sum(1 for r in rounds if r.drawn),
    )


def compare_many(
    stories: Sequence[StoryIn], cells: Iterable[CellIn], products: Sequence[ProductKey]
) -> ManySummary:
    """``compare`` generalised to several products (given in the order to show them): a round per
    story (in the order given) where at least two of their cells apply (``many_round``); for two
    products exactly ``compare``'s rounds (its winner the one best product, drawn the same).
    Cells of other products are ignored."""
    chosen = set(products)
    by_story: dict[int, dict[ProductKey, CellIn]] = {}
    for c in cells:
        if c.product in chosen:
            by_story.setdefault(c.story_id, {})[c.product] = c
    rounds = []
    for s in stories:
        found = many_round(s, by_story.get(s.id, {}), products)
        if found is not None:
            rounds.append(found)
    return tally_many_rounds(rounds, products)
