"""A score with its range (how sure it is): ``57 (49–61)`` and a small bar, the leaderboard's,
the persona cards' and the product page's (``arena/_ranged.html``)."""

from __future__ import annotations

from collections.abc import Sequence

from arena.models import ProductScore

# A stored range: (low, high), each out of 100.
Range = Sequence[int]


def ranged_context(value: int | None, rng: Range | None) -> dict[str, object]:
    """What ``arena/_ranged.html`` draws: the score, its range and where the bar's pieces go."""
    if value is None or not rng:
        return {"value": value, "low_high": False}
    low, high = int(rng[0]), int(rng[1])
    return {
        "value": int(value),
        "low_high": True,
        "low": low,
        "high": high,
        "width": max(high - low, 0),
        "tick": min(max(int(value) - 1, 0), 98),
    }


def score_with_range(score: ProductScore) -> dict[str, object]:
    """A stored score row's PA Score with its range and bar (the product page)."""
    low, high = getattr(score, "pa_low", None), getattr(score, "pa_high", None)
    rng = (low, high) if low is not None and high is not None else None
    return ranged_context(score.pa_score, rng)
