"""How sure a ranking is: the ranks each product could take (``rank_ranges``), the pairs too close
to call (``pair_call``) and, for each, the fewest unverified cells whose verification would settle
it (``settle_set``; docs/scoring.md, "What would settle it").

Verifying a cell keeps its published verdict and quality and stops it moving the range: its low and
high both become its quality. So each verified cell of the published leader raises the leader's low
by ``w × (q − q_low)`` (over ``Σ 10·w``), and each of the trailer's lowers the trailer's high by
``w × (q_high − q)``. A pair is settled when the leader's rounded low beats the trailer's rounded
high, the very integers ``pair_call`` reads once the scores are stored."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

from arena.scoring.calls import Ranged, pair_call
from arena.scoring.results import ProductResult
from arena.scoring.tally import CellIn, ProductKey, StoryIn, coverage_of, is_applicable
from arena.scoring.weights import is_unverified, quality_bounds

# A cell as the settle sets name it: (story id, product); the recompute maps it to the cell's id.
type CellKey = tuple[int, ProductKey]

# Past this many (leader's cells × trailer's cells) the exact search gives way to the greedy bound.
SETTLE_EXACT_LIMIT = 250_000


def ranged(result: ProductResult) -> Ranged:
    """A result as ``pair_call`` reads it: its PA Score and that score's range."""
    low, high = result.pa_range if result.pa_range else (None, None)
    return Ranged(result.product, result.pa_score, low, high)


def rank_ranges(
    ranges: Sequence[tuple[ProductKey, tuple[int, int] | None]],
) -> dict[ProductKey, tuple[int, int] | None]:
    """The ranks each product could take, among the products with a range: best = 1 + the number
    whose low beats its high, worst = their number − the number whose high is below its low. They
    always contain its published rank (a product ranked above it has at least its score). None for
    a product with no score."""
    known = [r for _, r in ranges if r is not None]
    out: dict[ProductKey, tuple[int, int] | None] = {}
    for key, r in ranges:
        if r is None:
            out[key] = None
            continue
        above = sum(1 for o in known if o[0] > r[1])
        below = sum(1 for o in known if o[1] < r[0])
        out[key] = (1 + above, len(known) - below)
    return out


@dataclass(frozen=True)
class Side:
    """One side of a pair as verification moves it: its range's two sums (``Σ w·q_low``,
    ``Σ w·q_high``), ``Σ 10·w``, and what verifying each unverified cell would move: its low up
    (``raise_low``) and its high down (``cut_high``), by cell, the largest first."""

    key: ProductKey
    low_sum: int
    high_sum: int
    maximum: int
    raise_low: tuple[tuple[int, CellKey], ...]
    cut_high: tuple[tuple[int, CellKey], ...]

    # What ``_exact`` walks, worked out once per product rather than once per pair.
    @cached_property
    def lows(self) -> list[int]:
        """The rounded low with the 0, 1, 2... largest ``raise_low`` gains verified (0s when it
        has no maximum: ``_exact`` does not walk such a side)."""
        return [coverage_of(self.low_sum + g, self.maximum) or 0 for g in _prefix(self.raise_low)]

    @cached_property
    def highs(self) -> list[int]:
        """The rounded high with the 0, 1, 2... largest ``cut_high`` gains verified."""
        return [coverage_of(self.high_sum - g, self.maximum) or 0 for g in _prefix(self.cut_high)]


def _ordered(gains: Iterable[tuple[int, CellKey]]) -> tuple[tuple[int, CellKey], ...]:
    # the largest gain first; equal gains in a stable order (by story, then product), so that the
    # stored sets do not change from one recompute to the next
    return tuple(
        sorted((g for g in gains if g[0] > 0), key=lambda g: (-g[0], g[1][0], str(g[1][1])))
    )


def sides(
    products: Iterable[ProductKey], stories: Sequence[StoryIn], cells: Iterable[CellIn]
) -> dict[ProductKey, Side]:
    """Each product's ``Side``, from the arena's cells (those of other stories or products are
    ignored): its range's sums are ``score_range``'s."""
    weight = {s.id: s.weight for s in stories}
    acc: dict[ProductKey, list[int]] = {p: [0, 0, 0] for p in products}
    ups: dict[ProductKey, list[tuple[int, CellKey]]] = {p: [] for p in acc}
    downs: dict[ProductKey, list[tuple[int, CellKey]]] = {p: [] for p in acc}
    for c in cells:
        w = weight.get(c.story_id)
        if w is None or c.product not in acc or not is_applicable(c):
            continue
        low, high = quality_bounds(c)
        sums = acc[c.product]
        sums[0] += w * low
        sums[1] += w * high
        sums[2] += 10 * w
        if is_unverified(c):
            q = c.quality or 0
            ups[c.product].append((w * (q - low), (c.story_id, c.product)))
            downs[c.product].append((w * (high - q), (c.story_id, c.product)))
    return {
        p: Side(p, s[0], s[1], s[2], _ordered(ups[p]), _ordered(downs[p])) for p, s in acc.items()
    }


def _settles(leader: Side, trailer: Side, up: int, down: int) -> bool:
    low = coverage_of(leader.low_sum + up, leader.maximum)
    high = coverage_of(trailer.high_sum - down, trailer.maximum)
    return low is not None and high is not None and low > high


def _prefix(gains: Sequence[tuple[int, CellKey]]) -> list[int]:
    sums = [0]
    for g, _ in gains:
        sums.append(sums[-1] + g)
    return sums


def _exact(leader: Side, trailer: Side) -> tuple[int, int] | None:
    """The fewest cells, as (how many of the leader's largest gains, of the trailer's): for a
    given count on each side the largest gains are best (rounding is monotone), so the smallest
    set is among the splits (i, fewest j that settles with i). That j only falls as i grows, so
    one walk over both sides finds it: i up, j down. On equal sizes the fewest of the leader's.
    None when even verifying all does not settle it."""
    if not leader.maximum or not trailer.maximum:
        return None  # (a side with no applicable cell has no range to settle)
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
    """The bound past the size limit: the largest gain in score points next, from either side,
    until the pair is settled. A set that settles it, not always the smallest (rounding)."""
    i = j = up = down = 0
    while not _settles(leader, trailer, up, down):
        a = leader.raise_low[i][0] / leader.maximum if i < len(leader.raise_low) else -1.0
        b = trailer.cut_high[j][0] / trailer.maximum if j < len(trailer.cut_high) else -1.0
        if a < 0 and b < 0:
            return None
        if a >= b:
            up, i = up + leader.raise_low[i][0], i + 1
        else:
            down, j = down + trailer.cut_high[j][0], j + 1
    return i, j


@dataclass(frozen=True)
class CloseCall:
    """A pair too close to call: ``a`` the published leader (the higher PA Score; on equal
    scores the one the leaderboard shows first), ``b`` the other; ``settle`` the fewest unverified
    cells whose verification would make ``a`` lead (empty when no verification can: equal
    scores); ``exact`` False when the set is the greedy bound past ``SETTLE_EXACT_LIMIT``."""

    a: ProductKey
    b: ProductKey
    settle: tuple[CellKey, ...]
    exact: bool = True


def settle_set(leader: Side, trailer: Side) -> tuple[tuple[CellKey, ...], bool]:
    """The fewest unverified cells (the leader's and the trailer's) whose verification makes
    ``leader``'s rounded low beat ``trailer``'s rounded high, and whether that set is exact; ``()``
    when none does (the leader's published score is not above the trailer's)."""
    exact = len(leader.raise_low) * len(trailer.cut_high) <= SETTLE_EXACT_LIMIT
    found = _exact(leader, trailer) if exact else _greedy(leader, trailer)
    if found is None or found == (0, 0):
        return (), exact
    i, j = found
    return tuple(k for _, k in leader.raise_low[:i]) + tuple(
        k for _, k in trailer.cut_high[:j]
    ), exact


def close_calls(
    results: Sequence[ProductResult], stories: Sequence[StoryIn], cells: Iterable[CellIn]
) -> list[CloseCall]:
    """Every pair too close to call (``pair_call``) among ``results`` given in leaderboard order,
    each with what would settle it, in that order (by the leader's place, then the other's).
    Pairs where a side has no score are not compared."""
    by_side = sides([r.product for r in results], stories, cells)
    scored = [r for r in results if r.pa_range is not None and r.pa_score is not None]
    out = []
    for i, first in enumerate(scored):
        for second in scored[i + 1 :]:
            if not pair_call(ranged(first), ranged(second)).close:
                continue
            lead, trail = (
                (second, first)
                if (second.pa_score or 0) > (first.pa_score or 0)
                else (
                    first,
                    second,
                )
            )
            settle, exact = settle_set(by_side[lead.product], by_side[trail.product])
            out.append(CloseCall(lead.product, trail.product, settle, exact))
    return out
