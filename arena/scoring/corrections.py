"""Which way an upheld correction went: against the product's claim (the page had a verdict or a
quality the product's own material overstated, and the correction lowered it), in the product's
favour (the correction raised it), or neither (the judgement stayed, or the story's applicability
changed). Integrity counts only the first (docs/scoring.md, "Integrity")."""

from __future__ import annotations

from enum import StrEnum

from arena.scoring.tally import VERDICT_ORDER
from stories.values import Verdict


class Direction(StrEnum):
    AGAINST = "against"  # lowered: the product's claim did not hold up
    FAVOUR = "favour"  # raised: the page had understated the product
    NEUTRAL = "neutral"  # same verdict and quality, or to or from n/a

    @property
    def label(self) -> str:
        return _LABELS[self]


_LABELS = {
    Direction.AGAINST: "against the product's claim",
    Direction.FAVOUR: "in the product's favour",
    Direction.NEUTRAL: "verdict and quality unchanged",
}


def _strength(verdict: str, quality: int | None) -> tuple[int, int] | None:
    rank = VERDICT_ORDER.get(Verdict(verdict))
    return None if rank is None else (rank, quality or 0)


def correction_direction(
    old_verdict: str, old_quality: int | None, new_verdict: str, new_quality: int | None
) -> Direction:
    """The direction of a correction from one judgement to another, in the order rounds are won
    by (full > partial > disputed > none, then quality). A change to or from n/a says the story
    does not (or does) apply, not that a claim was over- or understated: neutral."""
    old, new = _strength(old_verdict, old_quality), _strength(new_verdict, new_quality)
    if old is None or new is None or old == new:
        return Direction.NEUTRAL
    return Direction.AGAINST if new < old else Direction.FAVOUR
