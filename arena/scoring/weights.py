"""A visitor's weights, and how sure a score is: the sums per category × persona (``Part``) that any
weighting and its range are computed from, and the ranges' groups on a ranking."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from arena.scoring.tally import CellIn, StoryIn, coverage_of, has_evidence, is_applicable
from stories.values import QUALITY_MAX, Proof, Verdict

# A visitor's weight for a category or a persona multiplies the weights of its stories.
WEIGHT_LEVELS = {0: "ignore", 1: "normal", 2: "important", 3: "critical"}
WEIGHT_NORMAL = 1


@dataclass(frozen=True)
class Weights:
    """A visitor's weights: a multiplier 0-3 per category (by name) and per persona (by slug); what
    is not named counts 1 ("normal"). A story weighs ``w × category weight × persona weight``. The
    published scores are the case where every multiplier is 1 (``PUBLISHED``)."""

    categories: Mapping[str, int] = field(default_factory=dict)
    personas: Mapping[str, int] = field(default_factory=dict)

    def of(self, category: str, persona: str) -> int:
        return self.categories.get(category, WEIGHT_NORMAL) * self.personas.get(
            persona, WEIGHT_NORMAL
        )

    @property
    def published(self) -> bool:
        """All multipliers 1: the published weighting."""
        return all(v == WEIGHT_NORMAL for v in (*self.categories.values(), *self.personas.values()))


PUBLISHED = Weights()

# Uncertainty. An unverified cell (evidence resting on a vendor claim or behind a sign-in wall) could
# turn out one verdict step worse or better once checked. Each verdict's usual quality band bounds
# the quality the cell would then have; the step always moves the quality by at least one point
# where it can. ``none`` has no proof and ``full`` has no verdict above it.
UNVERIFIED_PROOF = frozenset({Proof.CLAIMED, Proof.AUTH_GATED})
VERDICT_STEPS = (Verdict.NONE, Verdict.DISPUTED, Verdict.PARTIAL, Verdict.FULL)
QUALITY_BANDS = {
    Verdict.NONE: (0, 0),
    Verdict.DISPUTED: (1, 4),
    Verdict.PARTIAL: (3, 6),
    Verdict.FULL: (7, 10),
}


def is_unverified(cell: CellIn) -> bool:
    return has_evidence(cell) and cell.proof in UNVERIFIED_PROOF


def quality_bounds(cell: CellIn) -> tuple[int, int]:
    """The quality an applicable cell would have one verdict step worse and one step better: for
    an unverified cell, worse = the verdict below with ``min(q − 1, top of its band)`` (at least 0),
    better = the verdict above with ``max(q + 1, bottom of its band)`` (at most 10; a ``full`` cell
    stays as it is); any other cell is as sure as it is: ``(q, q)``. Always ``low ≤ q ≤ high``."""
    q = cell.quality or 0
    if not is_unverified(cell):
        return q, q
    step = VERDICT_STEPS.index(Verdict(cell.verdict))
    low = max(0, min(q - 1, QUALITY_BANDS[VERDICT_STEPS[step - 1]][1]))
    high = q
    if step + 1 < len(VERDICT_STEPS):
        high = min(QUALITY_MAX, max(q + 1, QUALITY_BANDS[VERDICT_STEPS[step + 1]][0]))
    return low, high


class Part(NamedTuple):
    """A product's sums over the applicable cells of one category × persona: ``Σ w·q``,
    ``Σ 10·w``, and ``Σ w·q`` with every unverified cell one step worse (``low``) and one step
    better (``high``). Any weighting of categories and personas, and its range, is computed from
    these alone: they are stored with the scores, so a visitor's ranking reads no cell."""

    category: str
    persona: str
    weighted_quality: int
    weighted_max: int
    low: int
    high: int


def score_parts(cells: Iterable[tuple[StoryIn, CellIn]]) -> tuple[Part, ...]:
    """One product's parts from its cells (each with its story), in order of first appearance."""
    sums: dict[tuple[str, str], list[int]] = {}
    for story, cell in cells:
        if not is_applicable(cell):
            continue
        low, high = quality_bounds(cell)
        part = sums.setdefault((story.category, story.persona), [0, 0, 0, 0])
        part[0] += story.weight * (cell.quality or 0)
        part[1] += story.weight * QUALITY_MAX
        part[2] += story.weight * low
        part[3] += story.weight * high
    return tuple(Part(c, p, *v) for (c, p), v in sums.items())


def _weighted(parts: Iterable[Part], weights: Weights) -> tuple[int, int, int, int]:
    quality = maximum = low = high = 0
    for part in parts:
        k = weights.of(part.category, part.persona)
        quality += k * part.weighted_quality
        maximum += k * part.weighted_max
        low += k * part.low
        high += k * part.high
    return quality, maximum, low, high


def personal_score(parts: Iterable[Part], weights: Weights = PUBLISHED) -> int | None:
    """THE score formula: ``100 × Σ k·w·q / Σ 10·k·w`` over the applicable cells, ``k`` the
    visitor's multiplier of the story's category and persona. With every ``k`` = 1 it is the PA
    Score; None when nothing weighs (no applicable cell, or everything ignored)."""
    quality, maximum, _, _ = _weighted(parts, weights)
    return coverage_of(quality, maximum)


def score_range(parts: Iterable[Part], weights: Weights = PUBLISHED) -> tuple[int, int] | None:
    """The score's range: the same formula with every unverified cell one verdict step worse
    (low) and better (high). It contains the score; each unverified cell can only widen it."""
    _, maximum, low, high = _weighted(parts, weights)
    if maximum == 0:
        return None
    return coverage_of(low, maximum) or 0, coverage_of(high, maximum) or 0


def persona_parts(parts: Iterable[Part], persona: str) -> list[Part]:
    return [p for p in parts if p.persona == persona]


def range_groups(ranges: Sequence[tuple[int, int] | None]) -> list[int]:
    """Rows of a ranking (in the order shown, best first: each range's score is at most the one
    above's) whose ranges all overlap one another form one group: a row joins the group above when
    its range overlaps the range of every row in it, that is when its high reaches the highest low
    of the group. Groups count from 1; a row with no range is a group of its own."""
    groups: list[int] = []
    floor: int | None = None  # the highest low of the current group
    for i, r in enumerate(ranges):
        if i and r is not None and floor is not None and r[1] >= floor:
            groups.append(groups[-1])
            floor = max(floor, r[0])
        else:
            groups.append(groups[-1] + 1 if groups else 1)
            floor = r[0] if r is not None else None
    return groups
