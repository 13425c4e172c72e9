"""A product's result: every score of one product, the one definition of them. The recompute
stores it (``ProductResult.stored``), the leaderboard reads it back (``ProductResult.from_stored``)
and the API shows its fields; ``product_results`` computes it from the cells."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from arena.scoring.tally import (
    CellIn,
    ProductKey,
    StoryIn,
    Tally,
    cell_tally,
    evidence_share,
    verified_share,
)
from arena.scoring.weights import (
    PUBLISHED,
    Part,
    persona_parts,
    personal_score,
    score_parts,
    score_range,
)

# The fields a stored row keeps under the result's own names and in the result's own shape.
STORED_AS_IS = (
    "pa_score",
    "category_scores",
    "persona_scores",
    "verified",
    "with_evidence",
    "disputed",
    "contradicted",
    "upheld",
    "upheld_in_favour",
    "favour_credit",
    "upheld_unevidenced",
    "integrity",
    "confidence",
    "weighted_quality",
    "weighted_max",
    "published_evidence",
    "judged",
)


class StoredResult(Protocol):
    """A result as it is stored (``arena.models.ProductScore``): the fields of ``STORED_AS_IS``,
    the product as ``product_id``, the PA Score's range as ``pa_low`` and ``pa_high``, the parts
    and the persona ranges as JSON lists."""

    @property
    def product_id(self) -> ProductKey: ...

    @property
    def parts(self) -> Any: ...  # [[category, persona, Σ w·q, Σ 10·w, low, high], ...]

    @property
    def pa_low(self) -> int | None: ...

    @property
    def pa_high(self) -> int | None: ...

    @property
    def persona_ranges(self) -> Any: ...  # {persona slug: [low, high] or null}


def _pair(low: int | None, high: int | None) -> tuple[int, int] | None:
    return (low, high) if low is not None and high is not None else None


@dataclass(frozen=True)
class ProductResult:
    product: ProductKey
    name: str
    pa_score: int | None
    category_scores: dict[str, int | None]
    persona_scores: dict[str, int | None]
    verified: int
    with_evidence: int
    disputed: int
    contradicted: int
    upheld: int  # cells whose upheld corrections went, net, against the product's claim
    integrity: int | None
    confidence: str
    # cells whose upheld corrections went, net, in the product's favour: they never lower integrity
    upheld_in_favour: int = 0
    # what those add to integrity, and the cells corrected against it left without evidence
    # (``scoring.integrity``)
    favour_credit: int = 0
    upheld_unevidenced: int = 0
    # the two sums of the PA Score (None: a stored row from before they were stored)
    weighted_quality: int | None = None
    weighted_max: int | None = None
    # the sums every weighting and range is computed from (empty: a stored row from before)
    parts: tuple[Part, ...] = ()
    pa_range: tuple[int, int] | None = None
    persona_ranges: dict[str, tuple[int, int] | None] = field(default_factory=dict)
    # judged (applicable) cells whose backing the pages publish, and all judged cells
    published_evidence: int = 0
    judged: int = 0

    @property
    def evidence_share(self) -> int | None:
        return evidence_share(self.published_evidence, self.judged)

    @property
    def verified_share(self) -> float:
        return verified_share(self.verified, self.with_evidence)

    @property
    def tally(self) -> Tally | None:
        """The product's tally over all its cells; None when its sums are unknown."""
        if self.weighted_quality is None or self.weighted_max is None:
            return None
        return Tally(*(getattr(self, f) for f in Tally._fields))

    def stored(self) -> dict[str, Any]:
        """The fields of the result's stored row (``StoredResult``)."""
        return {
            "product_id": self.product,
            **{f: getattr(self, f) for f in STORED_AS_IS},
            "parts": [list(part) for part in self.parts],
            "pa_low": self.pa_range[0] if self.pa_range else None,
            "pa_high": self.pa_range[1] if self.pa_range else None,
            "persona_ranges": {p: list(r) if r else None for p, r in self.persona_ranges.items()},
        }

    @classmethod
    def from_stored(cls, row: StoredResult, *, name: str) -> ProductResult:
        """A stored row (``stored``) read back, its product called ``name``."""
        ranges: Mapping[str, Sequence[int] | None] = row.persona_ranges or {}
        return cls(
            product=row.product_id,
            name=name,
            parts=tuple(map(Part._make, row.parts)),
            pa_range=_pair(row.pa_low, row.pa_high),
            persona_ranges={p: (r[0], r[1]) if r else None for p, r in ranges.items()},
            **{f: getattr(row, f) for f in STORED_AS_IS},
        )


@dataclass(frozen=True)
class RankedResult:
    rank: int
    vs: ProductKey | None
    result: ProductResult


def _result(
    product: ProductKey,
    name: str,
    cells: Sequence[tuple[StoryIn, CellIn]],
    categories: Sequence[str],
    personas: Sequence[str],
) -> ProductResult:
    by_category: dict[str, list[Tally]] = {cat: [] for cat in categories}
    by_persona: dict[str, list[Tally]] = {p: [] for p in personas}
    tallies = []
    for story, cell in cells:
        tallies.append(part := cell_tally(cell, story.weight))
        by_category[story.category].append(part)
        by_persona[story.persona].append(part)
    total = Tally.total(tallies)
    parts = score_parts(cells)
    return ProductResult(
        product=product,
        name=name,
        pa_score=personal_score(parts, PUBLISHED),
        category_scores={cat: Tally.total(t).coverage for cat, t in by_category.items()},
        persona_scores={p: Tally.total(t).coverage for p, t in by_persona.items()},
        integrity=total.integrity,
        confidence=total.confidence,
        parts=parts,
        pa_range=score_range(parts),
        persona_ranges={p: score_range(persona_parts(parts, p)) for p in personas},
        **total._asdict(),  # the sums and the counts, under the result's names
    )


def product_results(
    products: Sequence[tuple[ProductKey, str]],
    stories: Sequence[StoryIn],
    cells: Iterable[CellIn],
) -> list[ProductResult]:
    """All scores of every product (``(key, name)`` pairs) from the arena's cells (one per story
    and product): one pass over the cells. Cells of other stories or products are ignored."""
    story_of = {s.id: s for s in stories}
    categories = list(dict.fromkeys(s.category for s in stories))
    personas = list(dict.fromkeys(s.persona for s in stories))
    parts: dict[ProductKey, dict[int, tuple[StoryIn, CellIn]]] = {key: {} for key, _ in products}
    for c in cells:
        story = story_of.get(c.story_id)
        mine = parts.get(c.product)
        if story is not None and mine is not None:
            mine[c.story_id] = (story, c)
    # each product's cells in the stories' order (the cells may come in any order): its parts, and
    # so the categories they name, then come in matrix order
    return [
        _result(
            key,
            name,
            [parts[key][s.id] for s in stories if s.id in parts[key]],
            categories,
            personas,
        )
        for key, name in products
    ]


def product_result(
    product: ProductKey, name: str, stories: Sequence[StoryIn], cells: Sequence[CellIn]
) -> ProductResult:
    """All scores of one product from its cells (one per story)."""
    return product_results([(product, name)], stories, cells)[0]
