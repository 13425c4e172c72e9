"""Who leads, read from the stored scores: each product's PA Score (or a persona's score) with its
range as ``scoring.Ranged``, and ``scoring.pair_call`` on them. Every surface that says or implies
who is ahead (the leaderboard, best by user type, head-to-heads, comparisons, badges, Markdown,
llms.txt and the API) asks here, so they cannot disagree (docs/scoring.md, "Who leads")."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from arena import scoring
from arena.models import Arena, ProductScore


def ranged_of(score: Any, key: scoring.ProductKey | None = None) -> scoring.Ranged:
    """A stored score row's (``ProductScore`` or anything with its PA fields) PA Score with its
    range; no score (``None``) is a product nobody can call ahead."""
    if score is None:
        return scoring.Ranged(key if key is not None else 0, None, None, None)
    return scoring.Ranged(
        key if key is not None else score.product_id,
        getattr(score, "pa_score", None),
        getattr(score, "pa_low", None),
        getattr(score, "pa_high", None),
    )


def persona_ranged(score: Any, persona: str, key: scoring.ProductKey) -> scoring.Ranged:
    """A stored score row's score over one persona's stories with its range
    (``ProductScore.persona_scores`` / ``persona_ranges``)."""
    if score is None:
        return scoring.Ranged(key, None, None, None)
    value = (getattr(score, "persona_scores", None) or {}).get(persona)
    rng = (getattr(score, "persona_ranges", None) or {}).get(persona)
    if value is None or not rng:
        return scoring.Ranged(key, value, None, None)
    return scoring.Ranged(key, value, int(rng[0]), int(rng[1]))


def call_of(a: Any, b: Any, key_a: scoring.ProductKey, key_b: scoring.ProductKey) -> scoring.Call:
    """``pair_call`` on two stored score rows (either may be None: no score, too close to call)."""
    return scoring.pair_call(ranged_of(a, key_a), ranged_of(b, key_b))


def next_calls(rows: Iterable[Any]) -> list[scoring.Call | None]:
    """For rows in the published order, each row's call against the row after it (``None`` for
    the last)."""
    shown = list(rows)
    calls: list[scoring.Call | None] = [
        scoring.pair_call(ranged_of(r), ranged_of(n))
        for r, n in zip(shown, shown[1:], strict=False)
    ]
    return [*calls, None]


def pair_scores_get(*, arena: Arena, keys: Iterable[int]) -> Mapping[int, ProductScore]:
    """The stored PA Scores and ranges of some products of ``arena``, by product: one query."""
    rows = ProductScore.objects.filter(arena=arena, product_id__in=list(keys)).only(
        "product_id", "pa_score", "pa_low", "pa_high", "arena_id"
    )
    return {r.product_id: r for r in rows}


def persona_call(result: Any, scores: Mapping[int, Any]) -> scoring.Call | None:
    """Best by user type: the winner against the runner-up on that persona's scores and ranges
    (``scores``: the stored score rows by product id); None without a runner-up."""
    if result.winner is None or result.runner_up is None:
        return None
    slug, winner, runner_up = result.persona.slug, result.winner.pk, result.runner_up.pk
    return scoring.pair_call(
        persona_ranged(scores.get(winner), slug, winner),
        persona_ranged(scores.get(runner_up), slug, runner_up),
    )


def call_words(call: scoring.Call | None) -> str:
    """A call in the words every surface uses: ``leads`` or ``too close to call``."""
    if call is None:
        return ""
    return "too close to call" if call.close else "leads"


def first_leads(arena: Any) -> bool:
    """Whether the first of an arena's published ranking leads the second by the one rule (an
    ``arena_list`` row: ``leader_low``, ``second_high``; a lone product leads)."""
    if getattr(arena, "leader_slug", None) is None:
        return False
    if getattr(arena, "second_name", None) is None:
        return True
    low, high = getattr(arena, "leader_low", None), getattr(arena, "second_high", None)
    call = scoring.pair_call(scoring.Ranged(1, None, low, low), scoring.Ranged(2, None, high, high))
    return call.leader == 1
