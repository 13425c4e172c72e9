"""Who leads and how sure (docs/scoring.md): one leads only if its low beats the other's high."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate
from typing import Any

from arena.scoring.results import ProductResult, is_unverified, quality_bounds
from arena.scoring.tally import CellIn, ProductKey, StoryIn, coverage_of

type CellKey = tuple[int, ProductKey]  # (story id, product); the recompute maps it to a cell id

SETTLE_EXACT_LIMIT = 250_000  # past this many (leader's × trailer's cells): the greedy bound


@dataclass(frozen=True)
class Ranged:
    """A product's score and its range (``score_range``), as stored; None when it has no score."""

    key: ProductKey
    score: int | None
    low: int | None
    high: int | None


@dataclass(frozen=True)
class Call:
    """``leader`` and ``trailer`` when one leads, both None when it is too close to call."""

    leader: ProductKey | None
    trailer: ProductKey | None

    @property
    def close(self) -> bool:
        return self.leader is None


TOO_CLOSE = Call(None, None)


def pair_call(a: Ranged, b: Ranged) -> Call:
    if a.low is None or a.high is None or b.low is None or b.high is None:
        return TOO_CLOSE
    if a.low > b.high:
        return Call(a.key, b.key)
    if b.low > a.high:
        return Call(b.key, a.key)
    return TOO_CLOSE


def ranged(result: ProductResult) -> Ranged:
    low, high = result.pa_range if result.pa_range else (None, None)
    return Ranged(result.product, result.pa_score, low, high)


def rank_ranges(
    ranges: Sequence[tuple[ProductKey, tuple[int, int] | None]],
) -> dict[ProductKey, tuple[int, int] | None]:
    """The best and worst rank each product's range allows among the ranged ones."""
    known = [r for _, r in ranges if r is not None]
    return {
        key: None
        if r is None
        else (1 + sum(o[0] > r[1] for o in known), len(known) - sum(o[1] < r[0] for o in known))
        for key, r in ranges
    }


@dataclass(frozen=True)
class Side:
    """A product's range sums and, largest first, what verifying each unverified cell moves."""

    key: ProductKey
    low_sum: int
    high_sum: int
    maximum: int
    raise_low: tuple[tuple[int, CellKey], ...]
    cut_high: tuple[tuple[int, CellKey], ...]

    @cached_property
    def lows(self) -> list[int]:
        """The rounded low with the 0, 1, 2... largest ``raise_low`` gains verified."""
        return self._rounded(self.low_sum, self.raise_low, 1)

    @cached_property
    def highs(self) -> list[int]:
        return self._rounded(self.high_sum, self.cut_high, -1)

    def _rounded(self, total: int, gains: tuple[tuple[int, CellKey], ...], sign: int) -> list[int]:
        moved = accumulate((g for g, _ in gains), initial=0)
        return [coverage_of(total + sign * g, self.maximum) or 0 for g in moved]


def _ordered(gains: Iterable[tuple[int, CellKey]]) -> tuple[tuple[int, CellKey], ...]:
    # equal gains in a stable order, so that the stored sets do not change between recomputes
    return tuple(
        sorted((g for g in gains if g[0] > 0), key=lambda g: (-g[0], g[1][0], str(g[1][1])))
    )


def side_of(result: ProductResult, raise_low: tuple, cut_high: tuple) -> Side:
    parts = result.parts
    low, high = sum(p.low for p in parts), sum(p.high for p in parts)
    return Side(result.product, low, high, sum(p.weighted_max for p in parts), raise_low, cut_high)


def sides(
    results: Sequence[ProductResult], stories: Sequence[StoryIn], cells: Iterable[CellIn]
) -> dict[ProductKey, Side]:
    """Each result's ``Side``: its range's sums and the gains of its unverified cells."""
    weight = {s.id: s.weight for s in stories}
    gains: dict[ProductKey, tuple[list, list]] = {r.product: ([], []) for r in results}
    for c in cells:
        if c.story_id in weight and c.product in gains and is_unverified(c):
            w, q, (low, high) = weight[c.story_id], c.quality or 0, quality_bounds(c)
            gains[c.product][0].append((w * (q - low), (c.story_id, c.product)))
            gains[c.product][1].append((w * (high - q), (c.story_id, c.product)))
    return {
        r.product: side_of(r, _ordered(gains[r.product][0]), _ordered(gains[r.product][1]))
        for r in results
    }


def _exact(leader: Side, trailer: Side) -> tuple[int, int] | None:
    """The fewest (leader's, trailer's) largest gains that settle the pair: i up, j down."""
    lows, highs = leader.lows, trailer.highs
    best: tuple[int, int] | None = None
    j = len(highs) - 1
    for i, low in enumerate(lows):
        while j > 0 and low > highs[j - 1]:
            j -= 1
        if low > highs[j] and (best is None or i + j < sum(best)):
            best = (i, j)
    return best


def _greedy(leader: Side, trailer: Side) -> tuple[int, int] | None:
    """Past the limit: the largest gain next (leader's on a tie); steps only help, so bisect."""
    up, down = leader.raise_low, trailer.cut_high

    def split(k: int) -> tuple[int, int]:
        """How many of the first ``k`` steps take the leader's gains and the trailer's."""
        lo, hi = max(0, k - len(down)), min(k, len(up))
        while lo < hi:  # the most leader's gains whose i-th comes before the trailer's (k-i)-th
            i = (lo + hi + 1) // 2
            j = k - i
            if j >= len(down) or up[i - 1][0] * trailer.maximum >= down[j][0] * leader.maximum:
                lo = i
            else:
                hi = i - 1
        return lo, k - lo

    def settled(k: int) -> bool:
        i, j = split(k)
        return leader.lows[i] > trailer.highs[j]

    first, last = 0, len(up) + len(down)
    if not settled(last):
        return None
    while first < last:
        mid = (first + last) // 2
        first, last = (first, mid) if settled(mid) else (mid + 1, last)
    return split(first)


def settle_set(leader: Side, trailer: Side) -> tuple[tuple[CellKey, ...], bool]:
    """The fewest unverified cells that make ``leader``'s low beat ``trailer``'s high; exact?"""
    exact = len(leader.raise_low) * len(trailer.cut_high) <= SETTLE_EXACT_LIMIT
    found = None
    if leader.maximum and trailer.maximum:  # (a side with no applicable cell has no range)
        found = _exact(leader, trailer) if exact else _greedy(leader, trailer)
    if found is None or found == (0, 0):
        return (), exact
    i, j = found
    return tuple(k for _, k in (*leader.raise_low[:i], *trailer.cut_high[:j])), exact


def close_calls(
    results: Sequence[ProductResult],
    by_side: Mapping[ProductKey, Side],
    only: Collection[ProductKey] | None = None,
) -> list[dict[str, Any]]:
    """Close pairs (of ``only``) in board order: leader ``a``, trailer ``b``, settle set, exact?"""
    scored = [r for r in results if r.pa_range is not None and r.pa_score is not None]
    out = []
    for i, first in enumerate(scored):
        for second in scored[i + 1 :]:
            if only is not None and first.product not in only and second.product not in only:
                continue
            if not pair_call(ranged(first), ranged(second)).close:
                continue
            lead, trail = sorted((first, second), key=lambda r: -(r.pa_score or 0))  # stable
            settle, exact = settle_set(by_side[lead.product], by_side[trail.product])
            out.append({"a": lead.product, "b": trail.product, "settle": settle, "exact": exact})
    return out
