"""One product's cells added up: the plain records the rules read (``StoryIn``, ``CellIn``), what a
cell counts for (applicable, evidenced, verified) and their ``Tally``: coverage, confidence,
integrity and the verified share (docs/scoring.md)."""

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
)

# a product is known by any stable key: its id in the database, its slug in the tests
type ProductKey = int | str

VERIFIED_PROOF = frozenset({Proof.PROBED, Proof.COMMUNITY})


def verdict_strength(verdict: str | None, quality: int | None) -> tuple[int, int]:
    """How strongly a cell answers its story, for sorting stories by one product's verdicts (the
    strongest first): the order rounds are won by (full, partial, disputed, none), then quality;
    n/a and no cell last."""
    if verdict is None:
        return (-2, 0)
    return (VERDICT_ORDER.get(Verdict(verdict), -1), quality or 0)


def round_half_up(x: float) -> int:
    """Rounding everywhere is half up: ``floor(x + 0.5)``."""
    return math.floor(x + 0.5)


@dataclass(frozen=True)
class StoryIn:
    id: int
    weight: int
    category: str
    persona: str


@dataclass(frozen=True)
class CellIn:
    """A cell as the rules read it: its judgement, keyed by story and product. Not the pages'
    stand-in for a cell (``arena.selectors.cells.CellLine``): the rules know no database, so a
    product is any key (an id on the site, a slug in the tests, a name in the importer's
    checks), there is no rationale or evidence, and ``correction`` is the net direction of the
    flags upheld on it (``Corrections``): only one against the product's claim costs integrity."""

    story_id: int
    product: ProductKey
    verdict: str
    proof: str | None
    quality: int | None
    correction: Direction | None = None  # None: no flag on it was upheld
    # whether the pages publish what backs it, a quote or a rationale (``stories.values.Backing``)
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
        """A judgement as the plain record the rules read."""
        return cls(story_id, product, value.verdict, value.proof, value.quality, correction)


def is_applicable(cell: CellIn) -> bool:
    return cell.verdict != Verdict.NA


def has_evidence(cell: CellIn) -> bool:
    return cell.verdict in EVIDENCED


def is_verified(cell: CellIn) -> bool:
    return has_evidence(cell) and cell.proof in VERIFIED_PROOF


def coverage_of(weighted_quality: int, weighted_max: int) -> int | None:
    """``100 × Σ w·q / Σ 10·w`` from its two sums; None when there is no applicable cell."""
    if weighted_max == 0:
        return None
    return round_half_up(100 * weighted_quality / weighted_max)


def coverage(cells: Iterable[CellIn], weights: dict[int, int]) -> int | None:
    """``100 × Σ w·q / Σ 10·w`` over the applicable cells; None when there is none."""
    return Tally.total(cell_tally(c, weights[c.story_id]) for c in cells).coverage


def confidence(verified: int, with_evidence: int) -> str:
    """A when V/E ≥ 0.6, B ≥ 0.4, C ≥ 0.2, else D."""
    share = verified / with_evidence if with_evidence else 0.0
    if share >= 0.6:
        return "A"
    if share >= 0.4:
        return "B"
    if share >= 0.2:
        return "C"
    return "D"


def integrity(
    verified: int,
    contradicted: int,
    upheld: int,
    with_evidence: int,
    favour_credit: int = 0,
    upheld_unevidenced: int = 0,
) -> int | None:
    """``100 × (V − contradicted − upheld + favour_credit) / (E + upheld_unevidenced)``, clipped to
    0–100; None when that counts no cell.

    ``upheld``: the cells whose upheld corrections went, net, against the product's claim; the
    claim was there to check even when the correction left the cell without evidence, so those
    count among the cells all the same (``upheld_unevidenced``). A cell corrected, net, in the
    product's favour counts as holding up (+1, like a verified cell) whatever its proof:
    ``favour_credit`` lifts each such cell's own part (verified +1, unverified 0, contradicted
    −1) to +1. So a correction in the product's favour never lowers integrity, and one against
    its claim that keeps the proof never raises it."""
    cells = with_evidence + upheld_unevidenced
    if not cells:
        return None
    value = round_half_up(100 * (verified - contradicted - upheld + favour_credit) / cells)
    return max(0, min(100, value))


class Tally(NamedTuple):
    """What a set of one product's cells adds up to: the two sums of its coverage and the counts of
    its evidence. Tallies add and subtract, so a product's PA Score and integrity after one cell
    changes are its stored tally minus the cell's old part plus its new part (``uphold_effect``)."""

    weighted_quality: int = 0  # Σ w·q over the applicable cells
    weighted_max: int = 0  # Σ 10·w over the applicable cells
    verified: int = 0
    with_evidence: int = 0
    disputed: int = 0
    contradicted: int = 0
    upheld: int = 0  # cells corrected, net, against the product's claim
    upheld_in_favour: int = 0  # cells corrected, net, in the product's favour
    # what counting those as holding up adds to integrity (``integrity``): 1 for each that is
    # not verified, 2 for each whose proof is contradicted
    favour_credit: int = 0
    # cells corrected, net, against the product's claim and left without evidence: integrity
    # counts them among its cells
    upheld_unevidenced: int = 0
    # the evidence share: judged (applicable) cells whose backing the pages publish, of them all
    published_evidence: int = 0
    judged: int = 0

    @classmethod
    def total(cls, tallies: Iterable[Tally]) -> Tally:
        return cls(*map(sum, zip(*tallies, strict=False)))  # no tally: all zero

    def plus(self, other: Tally) -> Tally:
        return Tally(*(a + b for a, b in zip(self, other, strict=True)))

    def minus(self, other: Tally) -> Tally:
        return Tally(*(a - b for a, b in zip(self, other, strict=True)))

    @property
    def coverage(self) -> int | None:
        return coverage_of(self.weighted_quality, self.weighted_max)

    @property
    def integrity(self) -> int | None:
        return integrity(
            self.verified,
            self.contradicted,
            self.upheld,
            self.with_evidence,
            self.favour_credit,
            self.upheld_unevidenced,
        )

    @property
    def verified_share(self) -> float:
        return verified_share(self.verified, self.with_evidence)

    @property
    def confidence(self) -> str:
        return confidence(self.verified, self.with_evidence)


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
    applicable = is_applicable(cell)
    evidenced = has_evidence(cell)
    verified = is_verified(cell)
    contradicted = evidenced and cell.proof == Proof.CONTRADICTED
    favour = evidenced and correction == Direction.FAVOUR  # (a raised verdict has evidence)
    return Tally(
        weighted_quality=weight * (quality or 0) if applicable else 0,
        weighted_max=QUALITY_MAX * weight if applicable else 0,
        verified=int(verified),
        with_evidence=int(evidenced),
        disputed=int(cell.verdict == Verdict.DISPUTED),
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
    """V/E; 0 with no evidence."""
    return verified / with_evidence if with_evidence else 0.0


def evidence_share(published_evidence: int, judged: int) -> int | None:
    """The percentage of judged cells whose backing is published, half up; None with none judged."""
    return round_half_up(100 * published_evidence / judged) if judged else None
