"""Every rule of docs/scoring.md, as pure functions over plain data (no ORM in here).

The recompute service feeds these functions plain records loaded from the database and stores what
they return; the pages and the API only read what was stored. Head-to-head rounds are decided here too.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from stories.values import EVIDENCED, QUALITY_MAX, CellValue, Proof, Verdict

# a product is known by any stable key: its id in the database, its slug in the tests
type ProductKey = int | str

# head-to-head: a better verdict wins the round
VERDICT_ORDER = {Verdict.FULL: 3, Verdict.PARTIAL: 2, Verdict.DISPUTED: 1, Verdict.NONE: 0}
VERIFIED_PROOF = frozenset({Proof.PROBED, Proof.COMMUNITY})


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
    story_id: int
    product: ProductKey
    verdict: str
    proof: str | None
    quality: int | None
    upheld: bool = False  # corrected by upholding a flag

    @classmethod
    def of(
        cls, value: CellValue, *, story_id: int, product: ProductKey, upheld: bool = False
    ) -> CellIn:
        """A judgement as the plain record the rules read."""
        return cls(story_id, product, value.verdict, value.proof, value.quality, upheld)


def is_applicable(cell: CellIn) -> bool:
    return cell.verdict != Verdict.NA


def has_evidence(cell: CellIn) -> bool:
    return cell.verdict in EVIDENCED


def is_verified(cell: CellIn) -> bool:
    return has_evidence(cell) and cell.proof in VERIFIED_PROOF


def coverage(cells: Iterable[CellIn], weights: dict[int, int]) -> int | None:
    """``100 × Σ w·q / Σ 10·w`` over the applicable cells; None when there is none."""
    num = den = 0
    for c in cells:
        if not is_applicable(c):
            continue
        w = weights[c.story_id]
        num += w * (c.quality or 0)
        den += QUALITY_MAX * w
    if den == 0:
        return None
    return round_half_up(100 * num / den)


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


def integrity(verified: int, contradicted: int, upheld: int, with_evidence: int) -> int | None:
    """``100 × (V − contradicted − upheld) / E``, clipped to 0–100; None with no evidence."""
    if not with_evidence:
        return None
    value = round_half_up(100 * (verified - contradicted - upheld) / with_evidence)
    return max(0, min(100, value))


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
    upheld: int
    integrity: int | None
    confidence: str

    @property
    def verified_share(self) -> float:
        return self.verified / self.with_evidence if self.with_evidence else 0.0


@dataclass(frozen=True)
class RankedResult:
    rank: int
    vs: ProductKey | None
    result: ProductResult


def product_result(
    product: ProductKey, name: str, stories: Sequence[StoryIn], cells: Sequence[CellIn]
) -> ProductResult:
    """All scores of one product from its cells (one per story)."""
    weights = {s.id: s.weight for s in stories}
    by_story = {c.story_id: c for c in cells if c.product == product}
    mine = [by_story[s.id] for s in stories if s.id in by_story]
    categories = list(dict.fromkeys(s.category for s in stories))
    personas = list(dict.fromkeys(s.persona for s in stories))
    cat_of = {s.id: s.category for s in stories}
    per_of = {s.id: s.persona for s in stories}
    verified = sum(1 for c in mine if is_verified(c))
    evidenced = sum(1 for c in mine if has_evidence(c))
    contradicted = sum(1 for c in mine if has_evidence(c) and c.proof == Proof.CONTRADICTED)
    upheld = sum(1 for c in mine if c.upheld)
    return ProductResult(
        product=product,
        name=name,
        pa_score=coverage(mine, weights),
        category_scores={
            cat: coverage([c for c in mine if cat_of[c.story_id] == cat], weights)
            for cat in categories
        },
        persona_scores={
            p: coverage([c for c in mine if per_of[c.story_id] == p], weights) for p in personas
        },
        verified=verified,
        with_evidence=evidenced,
        disputed=sum(1 for c in mine if c.verdict == Verdict.DISPUTED),
        contradicted=contradicted,
        upheld=upheld,
        integrity=integrity(verified, contradicted, upheld, evidenced),
        confidence=confidence(verified, evidenced),
    )


# ---------------------------------------------------------------- leaderboard

# The rank keys (the pages' ``?rank=``): three plain ones, and one per category
# (``category:<name>``) and per persona (``persona:<slug>``).
RANK_PA = "pa"  # the default
RANK_VERIFIED = "verified"
RANK_INTEGRITY = "integrity"
RANK_CATEGORY = "category"
RANK_PERSONA = "persona"


def rank_key(kind: str, name: str) -> str:
    """The rank key of one category or persona: ``rank_key(RANK_PERSONA, "ops")``."""
    return f"{kind}:{name}"


def rank_key_split(key: str) -> tuple[str, str | None]:
    """``("category", "Durability")`` from ``category:Durability``; ``("pa", None)`` from ``pa``."""
    kind, colon, name = key.partition(":")
    return (kind, name) if colon else (key, None)


def _metric(key: str) -> Callable[[ProductResult], float | None]:
    kind, name = rank_key_split(key)
    if kind == RANK_PA and name is None:
        return lambda r: r.pa_score
    if kind == RANK_VERIFIED and name is None:
        return lambda r: r.verified_share if r.with_evidence else None
    if kind == RANK_INTEGRITY and name is None:
        return lambda r: r.integrity
    if kind == RANK_CATEGORY and name is not None:
        return lambda r: r.category_scores.get(name)
    if kind == RANK_PERSONA and name is not None:
        return lambda r: r.persona_scores.get(name)
    raise ValueError(f"unknown rank key {key!r}")


def order_by(results: Sequence[ProductResult], key: str = RANK_PA) -> list[ProductResult]:
    """Order by one metric, high to low (no score last); ties by V/E, then by name."""
    metric = _metric(key)

    def sort_key(r: ProductResult) -> tuple[bool, float, float, str]:
        value = metric(r)
        return (value is None, -(value or 0), -r.verified_share, r.name.lower())

    return sorted(results, key=sort_key)


def leaderboard(results: Sequence[ProductResult]) -> list[RankedResult]:
    """Default order (PA Score) with each row's head-to-head partner: the leader against the
    runner-up, every other row against the leader."""
    ordered = order_by(results, RANK_PA)
    ranked = []
    for i, r in enumerate(ordered):
        if i == 0:
            vs = ordered[1].product if len(ordered) > 1 else None
        else:
            vs = ordered[0].product
        ranked.append(RankedResult(rank=i + 1, vs=vs, result=r))
    return ranked


# ---------------------------------------------------------------- best by user type


@dataclass(frozen=True)
class PersonaBest:
    persona: str
    story_count: int
    winner: ProductKey | None
    winner_score: int | None
    runner_up: ProductKey | None
    runner_up_score: int | None


def best_by_persona(
    stories: Sequence[StoryIn], results: Sequence[ProductResult]
) -> list[PersonaBest]:
    """Per persona: highest persona score, then runner-up. Ties: higher PA Score, then name."""
    out = []
    for persona in dict.fromkeys(s.persona for s in stories):
        scored = [r for r in results if r.persona_scores.get(persona) is not None]
        scored.sort(
            key=lambda r: (-(r.persona_scores[persona] or 0), -(r.pa_score or 0), r.name.lower())
        )
        first = scored[0] if scored else None
        second = scored[1] if len(scored) > 1 else None
        out.append(
            PersonaBest(
                persona=persona,
                story_count=sum(1 for s in stories if s.persona == persona),
                winner=first.product if first else None,
                winner_score=first.persona_scores[persona] if first else None,
                runner_up=second.product if second else None,
                runner_up_score=second.persona_scores[persona] if second else None,
            )
        )
    return out


# ---------------------------------------------------------------- head-to-head

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
    won_a = sum(1 for r in rounds if r.winner == a)
    won_b = sum(1 for r in rounds if r.winner == b)
    return CompareSummary(
        a=a,
        b=b,
        won_a=won_a,
        won_b=won_b,
        drawn=sum(1 for r in rounds if r.winner == DRAWN),
        weighted_a=sum(r.weight for r in rounds if r.winner == a),
        weighted_b=sum(r.weight for r in rounds if r.winner == b),
        rounds=tuple(rounds),
    )
