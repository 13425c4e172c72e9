"""What one change would do: a product's tally and rank after upholding a flag on one of its cells,
from the stored tallies alone (no cell is read, no score recomputed)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from arena.scoring.corrections import Corrections
from arena.scoring.ranking import order_key
from arena.scoring.tally import CellIn, ProductKey, Tally, cell_tally
from stories.values import CellValue


@dataclass(frozen=True)
class Standing:
    """A product's place on the leaderboard as its tally over all its cells (stored with its
    scores): enough to rank it by PA Score and to preview one cell's change."""

    product: ProductKey
    name: str
    tally: Tally


def leaderboard_ranks(standings: Sequence[Standing]) -> dict[ProductKey, int]:
    """Each product's rank by PA Score, the order of ``leaderboard`` (give the standings in the
    order ``leaderboard`` is given its results: products with equal keys keep that order)."""
    ordered = sorted(
        standings, key=lambda s: order_key(s.tally.coverage, s.tally.verified_share, s.name)
    )
    return {s.product: rank for rank, s in enumerate(ordered, start=1)}


@dataclass(frozen=True)
class UpholdEffect:
    before: Tally
    after: Tally
    rank_before: int
    rank_after: int


def uphold_effect(
    standings: Sequence[Standing],
    product: ProductKey,
    *,
    weight: int,
    old: CellValue,
    new: CellValue,
    was_upheld: bool = False,
    corrections: Corrections | None = None,
    counted: bool = True,
) -> UpholdEffect:
    """What upholding a flag on one cell of ``product`` (its story weighing ``weight``) does to the
    product's tally and rank: the cell's value becomes ``new``, and the cell counts as corrected
    in the net direction of its upheld corrections, this one the latest (``Corrections``): against
    the product's claim (it costs integrity), in its favour, or neither.

    ``corrections``: the flags upheld on the cell before, their net (None: none was). Without them,
    ``was_upheld`` says only that some flag was: they are taken to have started and ended at
    ``old`` (net neither way), exact when they kept the values, and this correction's direction
    is ``old`` against ``new``. ``counted``: the cell counts towards the scores at all (neither its
    story nor its product is retired); when it does not, nothing changes. O(1) in cells,
    O(products) to re-rank."""
    i = next(i for i, s in enumerate(standings) if s.product == product)
    before = standings[i].tally
    after = before
    if counted:
        if corrections is None and was_upheld:
            corrections = Corrections(old, old)
        earlier = corrections.direction if corrections is not None else None
        now = (corrections or Corrections(old, old)).then(new).direction
        old_part = CellIn.of(old, story_id=0, product=product, correction=earlier)
        new_part = CellIn.of(new, story_id=0, product=product, correction=now)
        after = before.minus(cell_tally(old_part, weight)).plus(cell_tally(new_part, weight))
    changed = [*standings[:i], replace(standings[i], tally=after), *standings[i + 1 :]]
    return UpholdEffect(
        before=before,
        after=after,
        rank_before=leaderboard_ranks(standings)[product],
        rank_after=leaderboard_ranks(changed)[product],
    )
