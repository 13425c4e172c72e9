"""One product's cells added up (docs/scoring.md): ``Tally``, coverage, confidence, integrity."""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from stories.values import (
    EVIDENCED,
    QUALITY_MAX,
    VERDICT_ORDER,
    CellValue,
    Direction,
    Proof,
    Verdict,
    correction_direction,
)

type ProductKey = int | str  # any stable key: its id in the database, its slug in the tests

VERIFIED_PROOF = frozenset({Proof.PROBED, Proof.COMMUNITY})


def verdict_strength(verdict: str | None, quality: int | None) -> tuple[int, int]:
    """Full > partial > disputed > none, then quality; n/a and no cell last."""
    if verdict is None:
        return (-2, 0)
    return (VERDICT_ORDER.get(Verdict(verdict), -1), quality or 0)


def round_half_up(x: float) -> int:
    return math.floor(x + 0.5)


@dataclass(frozen=True)
class StoryIn:
    id: int
    weight: int
    category: str
    persona: str


@dataclass(frozen=True)
class CellIn:
    """A cell's judgement, the net direction of its upheld corrections, whether it is backed."""

    story_id: int
    product: ProductKey
    verdict: str
    proof: str | None
    quality: int | None
    correction: Direction | None = None
    published: bool = False

    @classmethod
    def of(
        cls,
        value: CellValue,
        *,
        story_id: int,
        product: ProductKey,
        correction: Direction | None = None,
    ) -> CellIn:
        return cls(story_id, product, value.verdict, value.proof, value.quality, correction)


@dataclass(frozen=True)
class Corrections:
    """A cell's upheld corrections, net: before the earliest against after the latest."""

    first: CellValue
    last: CellValue

    @property
    def direction(self) -> Direction:
        return correction_direction(
            self.first.verdict, self.first.quality, self.last.verdict, self.last.quality
        )

    @classmethod
    def of(cls, changes: Iterable[tuple[CellValue, CellValue]]) -> Corrections | None:
        """The net of ``(old, new)`` changes, the earliest first; None when there is none."""
        net = None
        for old, new in changes:
            net = cls(old if net is None else net.first, new)
        return net


def is_applicable(cell: CellIn) -> bool:
    return cell.verdict != Verdict.NA


def has_evidence(cell: CellIn) -> bool:
    return cell.verdict in EVIDENCED


def is_verified(cell: CellIn) -> bool:
    return has_evidence(cell) and cell.proof in VERIFIED_PROOF


def coverage_of(weighted_quality: int, weighted_max: int) -> int | None:
    """``100 × Σ w·q / Σ 10·w``; None when there is no applicable cell."""
    return round_half_up(100 * weighted_quality / weighted_max) if weighted_max else None


class Tally(NamedTuple):
    """A set of one product's cells added up."""

    weighted_quality: int = 0  # Σ w·q over the applicable cells
    weighted_max: int = 0  # Σ 10·w over the applicable cells
    verified: int = 0
    with_evidence: int = 0
    disputed: int = 0
    contradicted: int = 0
    upheld: int = 0  # cells corrected, net, against the product's claim
    upheld_in_favour: int = 0
    favour_credit: int = 0  # a cell corrected, net, in the product's favour holds up
    upheld_unevidenced: int = 0  # corrected against its claim: counts even without evidence
    published_evidence: int = 0  # judged cells whose backing the pages publish
    judged: int = 0

    @classmethod
    def total(cls, tallies: Iterable[Tally]) -> Tally:
        return cls(*map(sum, zip(*tallies, strict=False)))  # no tally: all zero

    @property
    def coverage(self) -> int | None:
        return coverage_of(self.weighted_quality, self.weighted_max)

    @property
    def integrity(self) -> int | None:
        """100 × (V − contradicted − upheld + favour_credit) / (E + upheld_unevidenced), 0–100."""
        if not (cells := self.with_evidence + self.upheld_unevidenced):
            return None
        net = self.verified - self.contradicted - self.upheld + self.favour_credit
        return max(0, min(100, round_half_up(100 * net / cells)))

    @property
    def verified_share(self) -> float:
        return verified_share(self.verified, self.with_evidence)

    @property
    def confidence(self) -> str:
        """A when V/E ≥ 0.6, B ≥ 0.4, C ≥ 0.2, else D."""
        floors = (("A", 0.6), ("B", 0.4), ("C", 0.2), ("D", 0))
        return next(grade for grade, floor in floors if self.verified_share >= floor)


@functools.cache
def _cell_tally(
    verdict: str,
    proof: str | None,
    quality: int | None,
    correction: Direction | None,
    weight: int,
    published: bool,
) -> Tally:
    cell = CellIn(0, 0, verdict, proof, quality, correction)
    applicable, evidenced, verified = is_applicable(cell), has_evidence(cell), is_verified(cell)
    contradicted = evidenced and proof == Proof.CONTRADICTED
    favour = evidenced and correction == Direction.FAVOUR  # (a raised verdict has evidence)
    return Tally(
        weighted_quality=weight * (quality or 0) if applicable else 0,
        weighted_max=QUALITY_MAX * weight if applicable else 0,
        verified=int(verified),
        with_evidence=int(evidenced),
        disputed=int(verdict == Verdict.DISPUTED),
        contradicted=int(contradicted),
        upheld=int(correction == Direction.AGAINST),
        upheld_in_favour=int(correction == Direction.FAVOUR),
        favour_credit=(1 - int(verified) + int(contradicted)) if favour else 0,
        upheld_unevidenced=int(correction == Direction.AGAINST and not evidenced),
        published_evidence=int(applicable and published),
        judged=int(applicable),
    )


def cell_tally(cell: CellIn, weight: int) -> Tally:
    """One cell's part of its product's tally, its story weighing ``weight``."""
    return _cell_tally(
        cell.verdict, cell.proof, cell.quality, cell.correction, weight, cell.published
    )


def verified_share(verified: int, with_evidence: int) -> float:
    return verified / with_evidence if with_evidence else 0.0


def evidence_share(published_evidence: int, judged: int) -> int | None:
    """The percentage of judged cells whose backing is published; None with none judged."""
    return round_half_up(100 * published_evidence / judged) if judged else None
