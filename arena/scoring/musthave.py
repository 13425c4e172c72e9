"""The must-have check (docs/scoring.md): who meets every must-have story and fact, how surely."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from arena.scoring.tally import CellIn, ProductKey, is_verified
from products.facts import open_source
from stories.values import Verdict

# The facts a visitor can require, in their canonical order (the address writes them so).
NEED_SELF_HOSTED = "self-hosted"
NEED_MANAGED = "managed"
NEED_OPEN_SOURCE = "open-source"
NEED_LABELS = {
    NEED_SELF_HOSTED: "self-hosted",
    NEED_MANAGED: "managed (hosted for you)",
    NEED_OPEN_SOURCE: "an open-source licence",
}
NEEDS = tuple(NEED_LABELS)
_HOSTING_OFFERS = {  # the ``products.Hosting`` values offering each kind of hosting
    NEED_SELF_HOSTED: frozenset({"self-hosted", "both"}),
    NEED_MANAGED: frozenset({"managed", "both"}),
}


class Outcome(StrEnum):
    MEETS = "meets"  # every must-have met
    FAILS = "fails"  # at least one must-have not met
    UNKNOWN = "unknown"  # none fails, but some are not known (a fact nobody stated, no cell)


class Certainty(StrEnum):
    CERTAIN = "certain"
    LIKELY = "likely"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Facts:
    """A product's stated facts ("" when nobody stated one)."""

    hosting: str = ""
    licence: str = ""


@dataclass(frozen=True)
class MustHaves:
    """What a visitor cannot do without: stories (by id) and facts (``NEEDS``)."""

    stories: tuple[int, ...] = ()
    needs: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.stories or self.needs)


@dataclass(frozen=True)
class MustAnswer:
    """``failing``: cells not ``full``; ``lacking``: stated facts not met; ``unknown``: unstated."""

    product: ProductKey
    outcome: Outcome
    certainty: Certainty
    failing: tuple[CellIn, ...]
    unjudged: tuple[int, ...]
    lacking: tuple[str, ...]
    unknown: tuple[str, ...]
    unverified: int


def need_met(need: str, facts: Facts) -> bool | None:
    """Whether the facts meet a need: True, False, or None when nobody stated the fact."""
    if need == NEED_OPEN_SOURCE:
        # the licence rule of the product facts: an OSI-approved SPDX expression
        return open_source(facts.licence) if facts.licence else None
    return (facts.hosting in _HOSTING_OFFERS[need]) if facts.hosting else None


def must_answer(
    product: ProductKey, must: MustHaves, cells: Iterable[CellIn], facts: Facts
) -> MustAnswer:
    """``product``'s answer from its cells: certain when the deciding cells are verified."""
    by_story = {c.story_id: c for c in cells if c.product == product and c.story_id in must.stories}
    asked = [by_story[s] for s in must.stories if s in by_story]
    failing = tuple(c for c in asked if c.verdict != Verdict.FULL)
    unjudged = tuple(s for s in must.stories if s not in by_story)
    met = {need: need_met(need, facts) for need in must.needs}
    lacking = tuple(n for n in must.needs if met[n] is False)
    unknown = tuple(n for n in must.needs if met[n] is None)
    if failing or lacking:
        sure = bool(lacking) or any(is_verified(c) for c in failing)
        deciding: Sequence[CellIn] = failing
        outcome, certainty = Outcome.FAILS, Certainty.CERTAIN if sure else Certainty.LIKELY
    elif unjudged or unknown:
        deciding, outcome, certainty = asked, Outcome.UNKNOWN, Certainty.UNKNOWN
    else:
        sure = all(is_verified(c) for c in asked)
        deciding, outcome = asked, Outcome.MEETS
        certainty = Certainty.CERTAIN if sure else Certainty.LIKELY
    unverified = sum(1 for c in deciding if not is_verified(c))
    return MustAnswer(product, outcome, certainty, failing, unjudged, lacking, unknown, unverified)
