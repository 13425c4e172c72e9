"""Which way upheld corrections went, net: ``stories.values.correction_direction`` is the rule for
one (against the product's claim, in its favour, or neither); integrity counts only the first
(docs/scoring.md, "Integrity").

A cell corrected more than once counts for its net effect (``Corrections``): the judgement before
its earliest upheld correction against the one after its latest, so a wrong correction that a
later upheld flag reversed does not stick to the product."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from stories.values import CellValue, Direction, correction_direction


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
