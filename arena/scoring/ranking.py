"""Rankings: the rank keys a visitor picks, the one ordering rule of every ranking, the places
(shared ranks and what broke the tie) and each row's head-to-head partner."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from arena.scoring.results import ProductResult, RankedResult
from arena.scoring.tally import ProductKey
from arena.scoring.weights import Weights, personal_score

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


def order_key(value: float | None, share: float, name: str) -> tuple[bool, float, float, str]:
    """The one ordering rule of every ranking: by a metric, high to low (no score last); ties by
    V/E, then by name."""
    return (value is None, -(value or 0), -share, name.lower())


def order_by(results: Sequence[ProductResult], key: str = RANK_PA) -> list[ProductResult]:
    """Order by one metric, high to low (no score last); ties by V/E, then by name."""
    metric = _metric(key)
    return sorted(results, key=lambda r: order_key(metric(r), r.verified_share, r.name))


def personal_scores(
    results: Sequence[ProductResult], weights: Weights
) -> dict[ProductKey, int | None]:
    """Each product's score under a visitor's weights (``personal_score`` of its stored parts)."""
    return {r.product: personal_score(r.parts, weights) for r in results}


def order_by_weights(results: Sequence[ProductResult], weights: Weights) -> list[ProductResult]:
    """The leaderboard under a visitor's weights: by personal score, then the ordering rule of every
    ranking (``order_key``). With ``PUBLISHED`` weights it is ``order_by(results, RANK_PA)``."""
    scores = personal_scores(results, weights)
    return sorted(results, key=lambda r: order_key(scores[r.product], r.verified_share, r.name))


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
