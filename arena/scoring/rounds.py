"""Head-to-head: two products' cells story by story, a round each where neither is n/a, won by
the better verdict, then the higher quality."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.scoring.tally import CellIn, ProductKey, StoryIn, is_applicable
from stories.values import VERDICT_ORDER, Verdict

DRAWN = "drawn"


def round_winner(a: CellIn, b: CellIn) -> ProductKey:
    """``a.product``, ``b.product`` or ``"drawn"``: the better verdict wins
    (full > partial > disputed > none); equal verdicts go to the higher quality."""
    va, vb = VERDICT_ORDER[Verdict(a.verdict)], VERDICT_ORDER[Verdict(b.verdict)]
    if va != vb:
        return a.product if va > vb else b.product
    qa, qb = a.quality or 0, b.quality or 0
    if qa != qb:
        return a.product if qa > qb else b.product
    return DRAWN


@dataclass(frozen=True)
class Round:
    story_id: int
    weight: int
    winner: ProductKey  # a product key or DRAWN


@dataclass(frozen=True)
class CompareSummary:
    a: ProductKey
    b: ProductKey
    won_a: int
    won_b: int
    drawn: int
    weighted_a: int
    weighted_b: int
    rounds: tuple[Round, ...]

    @property
    def leader(self) -> ProductKey:
        if self.weighted_a != self.weighted_b:
            return self.a if self.weighted_a > self.weighted_b else self.b
        if self.won_a != self.won_b:
            return self.a if self.won_a > self.won_b else self.b
        return DRAWN


def compare(
    stories: Sequence[StoryIn],
    cells_a: dict[int, CellIn],
    cells_b: dict[int, CellIn],
    a: ProductKey,
    b: ProductKey,
) -> CompareSummary:
    """Rounds over the stories (in the order given) where neither cell is ``n/a``."""
    rounds = []
    for s in stories:
        ca, cb = cells_a.get(s.id), cells_b.get(s.id)
        if ca is None or cb is None or not is_applicable(ca) or not is_applicable(cb):
            continue
        rounds.append(Round(s.id, s.weight, round_winner(ca, cb)))
    return tally_rounds(rounds, a, b)


def tally_rounds(rounds: Sequence[Round], a: ProductKey, b: ProductKey) -> CompareSummary:
    """The tally of some of a comparison's rounds (a category's, say), counted as ``compare``
    counts all of them: rounds won by each side, drawn, and the weights of the rounds won."""
    rounds = tuple(rounds)
    return CompareSummary(
        a=a,
        b=b,
        won_a=sum(1 for r in rounds if r.winner == a),
        won_b=sum(1 for r in rounds if r.winner == b),
        drawn=sum(1 for r in rounds if r.winner == DRAWN),
        weighted_a=sum(r.weight for r in rounds if r.winner == a),
        weighted_b=sum(r.weight for r in rounds if r.winner == b),
        rounds=rounds,
    )
