"""A product's result and scores; a visitor's weights over the category × persona ``Part`` sums."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from arena.scoring.tally import (
    CellIn,
    ProductKey,
    StoryIn,
    Tally,
    cell_tally,
    coverage_of,
    has_evidence,
    is_applicable,
)
from stories.values import QUALITY_MAX, Proof, Verdict

# A visitor's weight for a category or a persona multiplies the weights of its stories.
WEIGHT_LEVELS = {0: "ignore", 1: "normal", 2: "important", 3: "critical"}
WEIGHT_NORMAL = 1


@dataclass(frozen=True)
class Weights:
    """A multiplier 0-3 per category name and persona slug (1 when not named)."""

    categories: Mapping[str, int] = field(default_factory=dict)
    personas: Mapping[str, int] = field(default_factory=dict)

    def of(self, category: str, persona: str) -> int:
        return self.categories.get(category, WEIGHT_NORMAL) * self.personas.get(
            persona, WEIGHT_NORMAL
        )

    @property
    def published(self) -> bool:
        return all(v == WEIGHT_NORMAL for v in (*self.categories.values(), *self.personas.values()))


PUBLISHED = Weights()

# Checked, an unverified cell could move one verdict step, its quality within that verdict's band.
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
    """An unverified cell's quality one verdict step worse and better; any other's ``(q, q)``."""
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
    """The sums of one category × persona (``Σ w·q``, ``Σ 10·w``, low, high), stored."""

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


def _weighted(parts: Iterable[Sequence], weights: Weights) -> tuple[int, int, int, int]:
    """The parts' sums under ``weights``; a part may be stored as a plain list."""
    quality = maximum = low = high = 0
    for category, persona, part_quality, part_max, part_low, part_high in parts:
        k = weights.of(category, persona)
        quality += k * part_quality
        maximum += k * part_max
        low += k * part_low
        high += k * part_high
    return quality, maximum, low, high


def personal_score(parts: Iterable[Sequence], weights: Weights = PUBLISHED) -> int | None:
    """THE score formula: ``100 × Σ k·w·q / Σ 10·k·w`` (k = 1: the PA Score)."""
    quality, maximum, _, _ = _weighted(parts, weights)
    return coverage_of(quality, maximum)


def score_range(parts: Iterable[Sequence], weights: Weights = PUBLISHED) -> tuple[int, int] | None:
    """The same formula with every unverified cell one verdict step worse (low) and better (high)."""
    _, maximum, low, high = _weighted(parts, weights)
    if maximum == 0:
        return None
    return coverage_of(low, maximum) or 0, coverage_of(high, maximum) or 0


def range_groups(ranges: Sequence[tuple[int, int] | None]) -> list[int]:
    """Group numbers of a ranking's rows: a row joins the group whose ranges all overlap its own."""
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


@dataclass(frozen=True)
class ProductResult:
    product: ProductKey
    name: str
    pa_score: int | None
    category_scores: dict[str, int | None]
    persona_scores: dict[str, int | None]
    tally: Tally = Tally()
    parts: tuple[Part, ...] = ()
    pa_range: tuple[int, int] | None = None
    persona_ranges: dict[str, tuple[int, int] | None] = field(default_factory=dict)

    @classmethod
    def of_tally(cls, product: ProductKey, name: str, tally: Tally) -> ProductResult:
        """A result known only by its tally (a stored row's): enough to rank it."""
        return cls(product, name, tally.coverage, {}, {}, tally)

    @property
    def integrity(self) -> int | None:
        return self.tally.integrity

    @property
    def verified_share(self) -> float:
        return self.tally.verified_share


def product_results(
    products: Sequence[tuple[ProductKey, str]], stories: Sequence[StoryIn], cells: Iterable[CellIn]
) -> list[ProductResult]:
    """Every product's result from the arena's cells, in one pass."""
    story_of = {s.id: s for s in stories}
    categories = list(dict.fromkeys(s.category for s in stories))
    personas = list(dict.fromkeys(s.persona for s in stories))
    by_product: dict[ProductKey, dict[int, CellIn]] = {key: {} for key, _ in products}
    for c in cells:
        if c.story_id in story_of and c.product in by_product:
            by_product[c.product][c.story_id] = c
    out = []
    for key, name in products:
        # in the stories' order, so that the parts come in matrix order
        mine = [(s, by_product[key][s.id]) for s in stories if s.id in by_product[key]]
        parts = score_parts(mine)
        of_persona = {p: [part for part in parts if part.persona == p] for p in personas}
        of_category = {c: [part for part in parts if part.category == c] for c in categories}
        out.append(
            ProductResult(
                product=key,
                name=name,
                pa_score=personal_score(parts),
                category_scores={c: personal_score(ps) for c, ps in of_category.items()},
                persona_scores={p: personal_score(ps) for p, ps in of_persona.items()},
                tally=Tally.total(cell_tally(cell, story.weight) for story, cell in mine),
                parts=parts,
                pa_range=score_range(parts),
                persona_ranges={p: score_range(ps) for p, ps in of_persona.items()},
            )
        )
    return out
