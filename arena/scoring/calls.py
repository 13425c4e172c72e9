"""Who leads: the one rule every surface uses to say "A leads", "B leads" or "too close to call"
(the leaderboard, best by user type, head-to-heads, comparisons, badges, feeds, Markdown,
llms.txt and the API). A product leads another only when its lowest possible score beats the
other's highest possible one: no way its unverified cells could turn out would change the order
(docs/scoring.md, "Who leads")."""

from __future__ import annotations

from dataclasses import dataclass

from arena.scoring.tally import ProductKey


@dataclass(frozen=True)
class Ranged:
    """A product's score and its range (``score_range``: every unverified cell one verdict step
    worse / better), as stored; None when it has no score."""

    key: ProductKey
    score: int | None
    low: int | None
    high: int | None


@dataclass(frozen=True)
class Call:
    """The call on a pair: ``leader`` (and ``trailer``) when one leads, both None when it is too
    close to call."""

    leader: ProductKey | None
    trailer: ProductKey | None

    @property
    def close(self) -> bool:
        return self.leader is None


TOO_CLOSE = Call(None, None)


def pair_call(a: Ranged, b: Ranged) -> Call:
    """``A leads`` when A's low is above B's high, ``B leads`` the other way round, else too close
    to call (overlapping ranges, or a side with no score to compare)."""
    if a.low is None or a.high is None or b.low is None or b.high is None:
        return TOO_CLOSE
    if a.low > b.high:
        return Call(a.key, b.key)
    if b.low > a.high:
        return Call(b.key, a.key)
    return TOO_CLOSE
