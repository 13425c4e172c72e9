"""Who leads, read from the stored scores and ranges with ``pair_call``: every surface that
says who is ahead asks here, so none can disagree (docs/scoring.md, "Who leads")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any

from arena.models import ProductScore
from arena.scoring.certainty import Call, Ranged, pair_call
from arena.scoring.tally import ProductKey


def ranged_of(score: ProductScore | None, key: ProductKey) -> Ranged:
    """A stored row's PA Score with its range (none: no score, nobody can call it ahead)."""
    if score is None:
        return Ranged(key, None, None, None)
    return Ranged(key, score.pa_score, score.pa_low, score.pa_high)


def call_of(a: ProductScore, b: ProductScore) -> Call:
    return pair_call(ranged_of(a, a.product_id), ranged_of(b, b.product_id))


def next_calls(rows: Sequence[ProductScore]) -> list[Call | None]:
    """Each row's call against the next row (``None`` for the last)."""
    return [*(call_of(r, n) for r, n in pairwise(rows)), None]


def persona_call(result: Any, scores: Mapping[int, ProductScore]) -> Call | None:
    """Best by user type: the winner against the runner-up on that persona's scores."""
    if result.winner is None or result.runner_up is None:
        return None
    slug = result.persona.slug

    def ranged(key: int) -> Ranged:
        score = scores.get(key)
        value = (score.persona_scores or {}).get(slug) if score else None
        low, high = ((score.persona_ranges or {}).get(slug) if score else None) or (None, None)
        return Ranged(key, value, low, high) if value is not None else Ranged(key, None, None, None)

    return pair_call(ranged(result.winner.pk), ranged(result.runner_up.pk))


def call_words(call: Call | None) -> str:
    """``leads``, ``too close to call``, or nothing."""
    return "" if call is None else "too close to call" if call.close else "leads"


def first_leads(arena: Any) -> bool:
    """Whether the first of an ``arena_list`` row's ranking leads the second (a lone one does)."""
    if getattr(arena, "leader_slug", None) is None:
        return False
    if getattr(arena, "second_name", None) is None:
        return True
    low, high = getattr(arena, "leader_low", None), getattr(arena, "second_high", None)
    call = pair_call(Ranged(1, None, low, low), Ranged(2, None, high, high))
    return call.leader == 1
