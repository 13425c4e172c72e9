"""The arena page's cards: "Best by user type" (each persona's winner and runner-up) and the
adjacent arenas (``arena/detail.html`` draws them)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from arena import scoring
from arena.models import PersonaResult
from arena.selectors import Leaderboard
from arena.selectors.calls import persona_call
from web.pages import links
from web.pages.ranges import ranged_context

_TIE_BREAKS = {"PA Score": "a higher PA Score", "name": "name (alphabetical)"}


@dataclass(frozen=True)
class PersonaCard:
    """One "Best by user type" card as the template draws it."""

    result: PersonaResult
    winner_url: str
    runner_up_url: str
    tie_break: str  # what put the winner ahead of a runner-up of the same score, "" when not tied
    call: str  # "close", "leads", or "" with no runner-up to call
    spread: dict[str, Any] | None  # the winner's range over this persona's stories, for its bar
    stories_url: str
    few: bool  # fewer than ``scoring.FEW_STORIES`` stories decide it


def persona_card_list(
    persona_results: Iterable[PersonaResult], arena: str, board: Leaderboard | None = None
) -> list[PersonaCard]:
    """Each persona's card: its winner and runner-up with their pages, what decided a tie
    between them (``board``'s PA Scores, which a tie falls to), whether the winner leads by the
    one rule (``scoring.pair_call``), the winner's range and the link to its stories."""
    products = links.url_prefix("product-detail", arena)
    rows = board.rows if board is not None else []
    pa = {row.product_id: row.pa_score for row in rows}
    # each product's range per persona (``ProductScore.persona_ranges``), from the same rows
    ranges = {row.product_id: getattr(row, "persona_ranges", None) or {} for row in rows}
    scores = {row.product_id: row for row in rows}
    cards = []
    for r in persona_results:
        winner, runner_up = r.winner, r.runner_up
        tie_break, call = "", ""
        if winner and runner_up:
            decided_by = scoring.persona_decided_by(
                r.winner_score, r.runner_up_score, pa.get(winner.pk), pa.get(runner_up.pk)
            )
            tie_break = _TIE_BREAKS[decided_by] if decided_by else ""
            called = persona_call(r, scores)
            call = "" if called is None else "close" if called.close else "leads"
        rng = ranges.get(winner.pk, {}).get(r.persona.slug) if winner else None
        cards.append(
            PersonaCard(
                result=r,
                winner_url=f"{products}{winner.slug}/" if winner else "",
                runner_up_url=f"{products}{runner_up.slug}/" if runner_up else "",
                tie_break=tie_break,
                call=call,
                spread=ranged_context(r.winner_score, rng)
                if rng and r.winner_score is not None
                else None,
                stories_url=links.persona_stories_url(arena, r.persona.slug),
                few=int(r.story_count) < scoring.FEW_STORIES,
            )
        )
    return cards
