"""A score with its range (how sure it is): ``57 (49–61)`` and a small bar, the leaderboard's,
the persona cards' and the product page's."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.safestring import SafeString, mark_safe

from arena.models import ProductScore

# A stored range: (low, high), each out of 100.
Range = Sequence[int]


def range_bar(score: int, low: int, high: int) -> str:
    """A score's range drawn on a 0-100 track, a tick at the score: decorative (the text says it)."""
    return (
        '<svg class="rbar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true"'
        ' focusable="false"><rect class="rbar-track" x="0" y="4" width="100" height="2"/>'
        f'<rect class="rbar-range" x="{low}" y="2" width="{max(high - low, 0)}" height="6"/>'
        f'<rect class="rbar-tick" x="{min(max(score - 1, 0), 98)}" y="0" width="2" height="10"/>'
        "</svg>"
    )


def ranged(value: int | None, rng: Range | None) -> str:
    """A score with its range, ``57 (49–61)`` and its bar (``57/100, range 49–61`` read out);
    ``57/100`` with no range stored, ``—`` with no score."""
    if value is None:
        return "—"
    if not rng:
        return f"{int(value)}/100"
    low, high = int(rng[0]), int(rng[1])
    return (
        f'<span class="ranged"><span class="nw">{int(value)}'
        f'<span class="visually-hidden">/100, range</span> <span class="rng">({low}–{high})'
        f"</span></span>{range_bar(int(value), low, high)}</span>"
    )


def score_with_range(score: ProductScore) -> SafeString:
    """A stored score row's PA Score with its range and bar (the product page)."""
    low, high = getattr(score, "pa_low", None), getattr(score, "pa_high", None)
    rng = (low, high) if low is not None and high is not None else None
    return mark_safe(ranged(score.pa_score, rng))
