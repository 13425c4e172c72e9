"""Every rule of docs/scoring.md, as pure functions over plain data (no ORM in here).

The recompute service feeds these functions plain records loaded from the database and stores what
they return; the pages and the API only read what was stored. Head-to-head rounds are decided here too.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from stories.values import EVIDENCED, QUALITY_MAX, CellValue, Proof, Verdict

# a product is known by any stable key: its id in the database, its slug in the tests
type ProductKey = int | str

# head-to-head: a better verdict wins the round
VERDICT_ORDER = {Verdict.FULL: 3, Verdict.PARTIAL: 2, Verdict.DISPUTED: 1, Verdict.NONE: 0}
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


def integrity(verified: int, contradicted: int, upheld: int, with_evidence: int) -> int | None:
    """``100 × (V − contradicted − upheld) / E``, clipped to 0–100; None with no evidence."""
    if not with_evidence:
        return None
    value = round_half_up(100 * (verified - contradicted - upheld) / with_evidence)
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
    upheld: int = 0

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
        return integrity(self.verified, self.contradicted, self.upheld, self.with_evidence)

    @property
    def verified_share(self) -> float:
        return verified_share(self.verified, self.with_evidence)


@functools.cache
def _cell_tally(
    verdict: str, proof: str | None, quality: int | None, upheld: bool, weight: int
) -> Tally:
    cell = CellIn(0, 0, verdict, proof, quality, upheld)
    applicable = is_applicable(cell)
    evidenced = has_evidence(cell)
    return Tally(
        weighted_quality=weight * (quality or 0) if applicable else 0,
        weighted_max=QUALITY_MAX * weight if applicable else 0,
        verified=int(is_verified(cell)),
        with_evidence=int(evidenced),
        disputed=int(cell.verdict == Verdict.DISPUTED),
        contradicted=int(evidenced and cell.proof == Proof.CONTRADICTED),
        upheld=int(cell.upheld),
    )


def cell_tally(cell: CellIn, weight: int) -> Tally:
    """One cell's part of its product's tally, its story weighing ``weight``."""
    return _cell_tally(cell.verdict, cell.proof, cell.quality, cell.upheld, weight)


def verified_share(verified: int, with_evidence: int) -> float:
    """V/E; 0 with no evidence."""
    return verified / with_evidence if with_evidence else 0.0


# ---------------------------------------------------------------- your weights; how sure a score is

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
    # the two sums of the PA Score (None: a stored row from before they were stored)
    weighted_quality: int | None = None
    weighted_max: int | None = None
    # the sums every weighting and range is computed from (empty: a stored row from before)
    parts: tuple[Part, ...] = ()
    pa_range: tuple[int, int] | None = None
    persona_ranges: dict[str, tuple[int, int] | None] = field(default_factory=dict)

    @property
    def verified_share(self) -> float:
        return verified_share(self.verified, self.with_evidence)

    @property
    def tally(self) -> Tally | None:
        """The product's tally over all its cells; None when its sums are unknown."""
        if self.weighted_quality is None or self.weighted_max is None:
            return None
        return Tally(
            self.weighted_quality,
            self.weighted_max,
            self.verified,
            self.with_evidence,
            self.disputed,
            self.contradicted,
            self.upheld,
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
        verified=total.verified,
        with_evidence=total.with_evidence,
        disputed=total.disputed,
        contradicted=total.contradicted,
        upheld=total.upheld,
        integrity=total.integrity,
        confidence=confidence(total.verified, total.with_evidence),
        weighted_quality=total.weighted_quality,
        weighted_max=total.weighted_max,
        parts=parts,
        pa_range=score_range(parts),
        persona_ranges={p: score_range(persona_parts(parts, p)) for p in personas},
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


def _order(value: float | None, share: float, name: str) -> tuple[bool, float, float, str]:
    """The one ordering rule of every ranking: by a metric, high to low (no score last); ties by
    V/E, then by name."""
    return (value is None, -(value or 0), -share, name.lower())


def order_by(results: Sequence[ProductResult], key: str = RANK_PA) -> list[ProductResult]:
    """Order by one metric, high to low (no score last); ties by V/E, then by name."""
    metric = _metric(key)
    return sorted(results, key=lambda r: _order(metric(r), r.verified_share, r.name))


def personal_scores(
    results: Sequence[ProductResult], weights: Weights
) -> dict[ProductKey, int | None]:
    """Each product's score under a visitor's weights (``personal_score`` of its stored parts)."""
    return {r.product: personal_score(r.parts, weights) for r in results}


def order_by_weights(results: Sequence[ProductResult], weights: Weights) -> list[ProductResult]:
    """The leaderboard under a visitor's weights: by personal score, then the ordering rule of every
    ranking (``_order``). With ``PUBLISHED`` weights it is ``order_by(results, RANK_PA)``."""
    scores = personal_scores(results, weights)
    return sorted(results, key=lambda r: _order(scores[r.product], r.verified_share, r.name))


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


@dataclass(frozen=True)
class Place:
    """A row's place in a ranking as the pages show it. Products with the same value of the metric
    share the first one's rank (``=2``: standard competition ranking, 1 2 2 4); ``decided_by``
    says what put them in the order shown ("verified share", "name" or both), "" when not tied."""

    rank: int
    tied: bool
    decided_by: str = ""


def places(
    results: Sequence[ProductResult], key: str = RANK_PA, weights: Weights | None = None
) -> list[Place]:
    """The places of ``results``, given in the order ``order_by(results, key)`` returns them (or
    ``order_by_weights(results, weights)`` when ``weights`` are given: ranked by personal score)."""
    if weights is not None:
        scores = personal_scores(results, weights)
        values: list[float | None] = [scores[r.product] for r in results]
    else:
        metric = _metric(key)
        values = [metric(r) for r in results]
    out: list[Place] = []
    start = 0
    while start < len(results):
        end = start
        while end + 1 < len(results) and values[end + 1] == values[start]:
            end += 1
        group = results[start : end + 1]
        decided_by = ""
        if len(group) > 1:
            shares = [r.verified_share for r in group]
            if len(set(shares)) == 1:
                decided_by = "name"
            elif len(set(shares)) == len(shares):
                decided_by = "verified share"
            else:
                decided_by = "verified share, then name"
        out.extend(Place(start + 1, len(group) > 1, decided_by) for _ in group)
        start = end + 1
    return out


def rivals(
    order: Sequence[ProductKey], published: Iterable[ProductKey]
) -> dict[ProductKey, ProductKey | None]:
    """Each product's head-to-head partner on a leaderboard shown in ``order``: the nearest other
    product in that order whose verdicts' rationale and evidence are published (``published``),
    the one ranked above on equal distance; when no other product has published detail, simply
    the nearest one. None for a product alone on the board."""
    shown = set(published)
    out: dict[ProductKey, ProductKey | None] = {}
    for i, product in enumerate(order):
        others = sorted((j for j in range(len(order)) if j != i), key=lambda j: (abs(j - i), j > i))
        with_detail = [j for j in others if order[j] in shown]
        picks = with_detail or others
        out[product] = order[picks[0]] if picks else None
    return out


# ---------------------------------------------------------------- what one change would do


@dataclass(frozen=True)
class Standing:
    """A product's place on the leaderboard as its tally over all its cells (stored with its
    scores): enough to rank it by PA Score and to preview one cell's change."""

    product: ProductKey
    name: str
    tally: Tally


def leaderboard_ranks(standings: Sequence[Standing]) -> dict[ProductKey, int]:
    """Each product's rank by PA Score, the order of ``leaderboard`` (give the standings in the
    order ``leaderboard`` is given its results: products with equal keys keep that order)."""
    ordered = sorted(
        standings, key=lambda s: _order(s.tally.coverage, s.tally.verified_share, s.name)
    )
    return {s.product: rank for rank, s in enumerate(ordered, start=1)}


@dataclass(frozen=True)
class UpholdEffect:
    before: Tally
    after: Tally
    rank_before: int
    rank_after: int


def uphold_effect(
    standings: Sequence[Standing],
    product: ProductKey,
    *,
    weight: int,
    old: CellValue,
    new: CellValue,
    was_upheld: bool,
    counted: bool = True,
) -> UpholdEffect:
    """What upholding a flag on one cell of ``product`` (its story weighing ``weight``) does to the
    product's tally and rank: the cell's value becomes ``new`` and it counts as upheld (against
    integrity, even when the values stay). ``was_upheld``: a flag on it was upheld before.
    ``counted``: the cell counts towards the scores at all (neither its story nor its product is
    retired); when it does not, nothing changes. O(1) in cells, O(products) to re-rank."""
    i = next(i for i, s in enumerate(standings) if s.product == product)
    before = standings[i].tally
    after = before
    if counted:
        after = before.minus(
            cell_tally(CellIn.of(old, story_id=0, product=product, upheld=was_upheld), weight)
        ).plus(cell_tally(CellIn.of(new, story_id=0, product=product, upheld=True), weight))
    changed = [*standings[:i], replace(standings[i], tally=after), *standings[i + 1 :]]
    return UpholdEffect(
        before=before,
        after=after,
        rank_before=leaderboard_ranks(standings)[product],
        rank_after=leaderboard_ranks(changed)[product],
    )


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


# A persona winner decided by fewer stories than this is flagged as resting on little evidence.
FEW_STORIES = 5


def persona_decided_by(
    winner_score: int | None,
    runner_up_score: int | None,
    winner_pa: int | None,
    runner_up_pa: int | None,
) -> str:
    """What decided a persona's winner over its runner-up when their persona scores are equal
    (the tie-break of ``best_by_persona``): "PA Score" or "name"; "" when they are not tied."""
    if winner_score is None or winner_score != runner_up_score:
        return ""
    return "PA Score" if (winner_pa or 0) != (runner_up_pa or 0) else "name"


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


# ---------------------------------------------------------------- N-product comparison

# At most this many products side by side on one comparison (at least two).
COMPARE_MIN = 2
COMPARE_MAX = 6


def _cell_strength(cell: CellIn) -> tuple[int, int]:
    """How a cell competes in a round: its verdict (full > partial > disputed > none), then its
    quality, as ``round_winner`` decides a pair."""
    return (VERDICT_ORDER[Verdict(cell.verdict)], cell.quality or 0)


@dataclass(frozen=True)
class ManyRound:
    """One story of a comparison of several products: a round when at least two of their cells
    apply (the n/a ones sit out)."""

    story_id: int
    weight: int
    competing: tuple[ProductKey, ...]  # the products whose cells apply, in the order given
    best: tuple[ProductKey, ...]  # the products with the best cell, in that order; () drawn

    @property
    def drawn(self) -> bool:
        """Every competing cell ties: nobody is best."""
        return not self.best

    @property
    def shared(self) -> bool:
        """Several products, not all of the competing ones, tie for the best cell."""
        return len(self.best) > 1


@dataclass(frozen=True)
class ManyStanding:
    """One product's part of a comparison of several."""

    product: ProductKey
    best: int  # rounds in which it alone has the best cell
    shared: int  # rounds in which it ties with others for the best cell (not all of them)
    weighted: int  # Σ weights of the rounds it is best in, alone or shared


@dataclass(frozen=True)
class ManySummary:
    products: tuple[ProductKey, ...]
    rounds: tuple[ManyRound, ...]
    standings: dict[ProductKey, ManyStanding]  # by product, in the order given
    drawn: int  # rounds in which every competing cell ties


def many_round(
    story: StoryIn, cells: dict[ProductKey, CellIn], products: Sequence[ProductKey]
) -> ManyRound | None:
    """One story as a round among ``products`` (their cells on it by product), or None when fewer
    than two of their cells apply: the best verdict wins, then the higher quality; products tied
    for the best share it; when every competing cell ties the round is drawn."""
    competing = [p for p in products if (c := cells.get(p)) is not None and is_applicable(c)]
    if len(competing) < COMPARE_MIN:
        return None
    strength = {p: _cell_strength(cells[p]) for p in competing}
    top = max(strength.values())
    best = tuple(p for p in competing if strength[p] == top)
    return ManyRound(
        story.id, story.weight, tuple(competing), () if len(best) == len(competing) else best
    )


def tally_many_rounds(rounds: Sequence[ManyRound], products: Sequence[ProductKey]) -> ManySummary:
    """The tally of some of a comparison's rounds (a category's, say), as ``compare_many`` counts
    all of them: per product the rounds it is best in alone, shared, and their weights."""
    rounds = tuple(rounds)
    standings = {
        p: ManyStanding(
            product=p,
            best=sum(1 for r in rounds if r.best == (p,)),
            shared=sum(1 for r in rounds if r.shared and p in r.best),
            weighted=sum(r.weight for r in rounds if p in r.best),
        )
        for p in products
    }
    return ManySummary(
        products=tuple(products),
        rounds=rounds,
        standings=standings,
        drawn=sum(1 for r in rounds if r.drawn),
    )


def compare_many(
    stories: Sequence[StoryIn], cells: Iterable[CellIn], products: Sequence[ProductKey]
) -> ManySummary:
    """``compare`` generalised to several products (given in the order to show them): a round per
    story (in the order given) where at least two of their cells apply (``many_round``); for two
    products exactly ``compare``'s rounds (its winner the one best product, drawn the same).
    Cells of other products are ignored."""
    chosen = set(products)
    by_story: dict[int, dict[ProductKey, CellIn]] = {}
    for c in cells:
        if c.product in chosen:
            by_story.setdefault(c.story_id, {})[c.product] = c
    rounds = []
    for s in stories:
        found = many_round(s, by_story.get(s.id, {}), products)
        if found is not None:
            rounds.append(found)
    return tally_many_rounds(rounds, products)
