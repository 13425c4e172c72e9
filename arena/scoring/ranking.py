"""Rank keys, the ordering rule, places, head-to-head partners, best by persona, uphold effects."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter
from typing import Any

from arena.scoring.results import ProductResult, Weights, personal_score
from arena.scoring.tally import CellIn, Corrections, ProductKey, StoryIn, Tally, cell_tally
from stories.values import CellValue

# The rank keys (``?rank=``): three plain ones, ``category:<name>`` and ``persona:<slug>``.
RANK_PA = "pa"  # the default
RANK_VERIFIED = "verified"
RANK_INTEGRITY = "integrity"
RANK_CATEGORY = "category"
RANK_PERSONA = "persona"


def rank_key(kind: str, name: str) -> str:
    return f"{kind}:{name}"


def rank_key_split(key: str) -> tuple[str, str | None]:
    """``("category", "Durability")`` from ``category:Durability``; ``("pa", None)`` from ``pa``."""
    kind, colon, name = key.partition(":")
    return (kind, name) if colon else (key, None)


def _metric(key: str) -> Callable[[Any], float | None]:
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


def _values(results: Sequence[Any], key: str, weights: Weights | None) -> list[float | None]:
    """Each result's value on the rank key, or its personal score under ``weights``."""
    if weights is not None:
        return [personal_score(r.parts, weights) for r in results]
    return list(map(_metric(key), results))


def order_by[R](
    results: Sequence[R], key: str = RANK_PA, weights: Weights | None = None
) -> list[R]:
    """Rows by ``key`` (or score under ``weights``) high to low, no score last; ties: V/E, name."""
    values = _values(results, key, weights)

    def order(v: tuple[float | None, Any]) -> tuple[bool, float, float, str]:
        return (v[0] is None, -(v[0] or 0), -v[1].verified_share, v[1].name.lower())

    return [r for _, r in sorted(zip(values, results, strict=True), key=order)]


@dataclass(frozen=True)
class RankedResult:
    rank: int
    vs: ProductKey | None
    result: ProductResult


def leaderboard(results: Sequence[ProductResult]) -> list[RankedResult]:
    """By PA Score; the leader against the runner-up, every other row against the leader."""
    ordered = order_by(results, RANK_PA)
    return [
        RankedResult(i + 1, ordered[0 if i else 1].product if len(ordered) > 1 else None, r)
        for i, r in enumerate(ordered)
    ]


@dataclass(frozen=True)
class Place:
    """Equal values share the first one's rank (1 2 2 4); ``decided_by`` says what ordered them."""

    rank: int
    tied: bool
    decided_by: str = ""


def places(
    results: Sequence[Any], key: str = RANK_PA, weights: Weights | None = None
) -> list[Place]:
    """The places of ``results``, given in the order ``order_by(results, key, weights)`` returns."""
    out: list[Place] = []
    valued = zip(_values(results, key, weights), results, strict=True)
    for _, same in groupby(valued, itemgetter(0)):
        group = [r for _, r in same]
        shares = {r.verified_share for r in group}
        decided_by = ""
        if len(group) > 1:
            if len(shares) == 1:
                decided_by = "name"
            elif len(shares) == len(group):
                decided_by = "verified share"
            else:
                decided_by = "verified share, then name"
        out += [Place(len(out) + 1, len(group) > 1, decided_by)] * len(group)
    return out


def rivals(
    order: Sequence[ProductKey], published: Iterable[ProductKey]
) -> dict[ProductKey, ProductKey | None]:
    """The nearest other product in ``order``, with published detail when any has it."""
    shown = set(published)
    out: dict[ProductKey, ProductKey | None] = {}
    for i, product in enumerate(order):
        others = sorted((j for j in range(len(order)) if j != i), key=lambda j: (abs(j - i), j > i))
        picks = [j for j in others if order[j] in shown] or others
        out[product] = order[picks[0]] if picks else None
    return out


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
        top: list[tuple[ProductKey | None, int | None]] = [(None, None), (None, None)]
        top[: len(scored[:2])] = [(r.product, r.persona_scores[persona]) for r in scored[:2]]
        count = sum(1 for s in stories if s.persona == persona)
        out.append(PersonaBest(persona, count, *top[0], *top[1]))
    return out


FEW_STORIES = 5  # a persona winner on fewer stories is flagged as resting on little evidence


def persona_decided_by(
    winner_score: int | None,
    runner_up_score: int | None,
    winner_pa: int | None,
    runner_up_pa: int | None,
) -> str:
    """What broke a tie of persona scores: "PA Score" or "name"; "" when not tied."""
    if winner_score is None or winner_score != runner_up_score:
        return ""
    return "PA Score" if (winner_pa or 0) != (runner_up_pa or 0) else "name"


@dataclass(frozen=True)
class UpholdEffect:
    before: Tally
    after: Tally
    rank_before: int
    rank_after: int


def uphold_effect(
    standings: Sequence[ProductResult],
    product: ProductKey,
    *,
    weight: int,
    old: CellValue,
    new: CellValue,
    corrections: Corrections | None = None,
    counted: bool = True,
) -> UpholdEffect:
    """Turn ``product``'s cell from ``old`` to ``new``: its tally and rank (``counted``: live)."""
    i = next(i for i, s in enumerate(standings) if s.product == product)
    before = after = standings[i].tally
    if counted:
        was = corrections.direction if corrections is not None else None
        now = Corrections(corrections.first if corrections else old, new).direction
        old_part = cell_tally(CellIn.of(old, story_id=0, product=product, correction=was), weight)
        new_part = cell_tally(CellIn.of(new, story_id=0, product=product, correction=now), weight)
        after = Tally(*(b - o + n for b, o, n in zip(before, old_part, new_part, strict=True)))
    changed = [*standings[:i], ProductResult.of_tally(product, standings[i].name, after)]
    changed += standings[i + 1 :]
    rank_before, rank_after = (
        1 + [r.product for r in order_by(rs)].index(product) for rs in (standings, changed)
    )
    return UpholdEffect(before, after, rank_before, rank_after)
