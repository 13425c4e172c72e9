"""Who leads, read from the stored scores and ranges with ``scoring.pair_call``: every surface that
says who is ahead asks here, so none can disagree (docs/scoring.md, "Who leads")."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import pairwise
from typing import Any

from arena import scoring
from arena.models import ProductScore


def ranged_of(score: Any, key: scoring.ProductKey | None = None) -> scoring.Ranged:
    """A stored row's PA Score with its range (``None``: no score, nobody can call it ahead)."""
    if score is None:
        return scoring.Ranged(key if key is not None else 0, None, None, None)
    key = key if key is not None else score.product_id
    low, high = getattr(score, "pa_low", None), getattr(score, "pa_high", None)
    return scoring.Ranged(key, getattr(score, "pa_score", None), low, high)


def call_of(a: Any, b: Any, key_a: scoring.ProductKey, key_b: scoring.ProductKey) -> scoring.Call:
    """``pair_call`` on two stored rows (either may be None)."""
    return scoring.pair_call(ranged_of(a, key_a), ranged_of(b, key_b))


def next_calls(rows: Iterable[Any]) -> list[scoring.Call | None]:
    """Each row's call against the next row (``None`` for the last)."""
    return [*(call_of(r, n, r.product_id, n.product_id) for r, n in pairwise(rows)), None]


def persona_call(result: Any, scores: Mapping[int, ProductScore]) -> scoring.Call | None:
    """Best by user type: the winner against the runner-up on that persona's scores."""
    if result.winner is None or result.runner_up is None:
        return None
    slug = result.persona.slug

    def ranged(key: int) -> scoring.Ranged:
        score = scores.get(key)
        value = (score.persona_scores or {}).get(slug) if score else None
        rng = (score.persona_ranges or {}).get(slug) if score else None
        if value is None or not rng:
            return scoring.Ranged(key, value, None, None)
        return scoring.Ranged(key, value, int(rng[0]), int(rng[1]))

    return scoring.pair_call(ranged(result.winner.pk), ranged(result.runner_up.pk))


def call_words(call: scoring.Call | None) -> str:
    """``leads``, ``too close to call``, or nothing."""
    return "" if call is None else "too close to call" if call.close else "leads"


def first_leads(arena: Any) -> bool:
    """Whether the first of an ``arena_list`` row's ranking leads the second (a lone one does)."""
    if getattr(arena, "leader_slug", None) is None:
        return False
    if getattr(arena, "second_name", None) is None:
        return True
    low, high = getattr(arena, "leader_low", None), getattr(arena, "second_high", None)
    call = scoring.pair_call(scoring.Ranged(1, None, low, low), scoring.Ranged(2, None, high, high))
    return call.leader == 1
