"""Which way an upheld correction went: against the product's claim (the page had a verdict or a
quality the product's own material overstated, and the correction lowered it), in the product's
favour (the correction raised it), or neither (the judgement stayed, or the story's applicability
changed). Integrity counts only the first (docs/scoring.md, "Integrity").

A cell corrected more than once counts for its net effect (``Corrections``): the judgement before
its earliest upheld correction against the one after its latest, so a wrong correction that a
later upheld flag reversed does not stick to the product."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from arena.scoring.verdicts import VERDICT_ORDER
from stories.values import CellValue, Verdict


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


@dataclass(frozen=True)
class Corrections:
    """A cell's upheld corrections as the net rule reads them: the judgement before the earliest
    (``first``) and the one after the latest (``last``)."""

    first: CellValue
    last: CellValue

    @property
    def direction(self) -> Direction:
        """Their net direction: ``first`` against ``last``."""
        return correction_direction(
            self.first.verdict, self.first.quality, self.last.verdict, self.last.quality
        )

    def then(self, new: CellValue) -> Corrections:
        """These corrections followed by one more, to ``new``."""
        return Corrections(self.first, new)

    @classmethod
    def of(cls, changes: Iterable[tuple[CellValue, CellValue]]) -> Corrections | None:
        """The net of a cell's upheld corrections, each ``(old, new)``, the earliest first; None
        when there is none."""
        net = None
        for old, new in changes:
            net = cls(old, new) if net is None else net.then(new)
        return net
