"""The arena page beyond its stored rows: leaderboard lines, best by user type, ranges, disputes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from arena.models import PersonaResult
from arena.scoring import tally
from arena.scoring.ranking import FEW_STORIES, persona_decided_by
from arena.selectors.calls import next_calls, persona_call
from arena.selectors.leaderboard import BoardRow, Leaderboard
from products.models import Product

GROUP_NAMES_MAX = 6  # a range group of more products is given by its places and ends
_TIE_BREAKS = {"PA Score": "a higher PA Score", "name": "name (alphabetical)"}


def ranged(value: int | None, rng: Sequence[int] | None) -> dict[str, object]:
    """What ``arena/_ranged.html`` draws: a score, its range and where the bar's pieces go."""
    if value is None or not rng or None in rng:
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


def open_disputes(
    arena: str, product: Product, counts: Mapping[int, int] | None, none: str = ""
) -> dict[str, object]:
    count = (counts or {}).get(product.pk, 0)
    return {"count": count, "arena": arena, "product": product, "none": none}


def evidence_share(published: int, judged: int) -> dict[str, object]:
    share = tally.evidence_share(published, judged)
    return {"published": published, "judged": judged, "share": share}


class Moved(NamedTuple):
    mark: str  # ``▲2``
    cls: str  # "up", "down" or "same"
    words: str


@dataclass(frozen=True)
class Line:
    row: BoardRow
    close_next: str  # the next product's name when their order is too close to call
    moved: Moved | None  # with a visitor's weights
    group: str | None  # the places its range group spans ("2–4"), "" alone, None: no groups
    stale: int  # its stale cells' share of its judged cells, 0 for none


def _moved(row: BoardRow) -> Moved:
    moved, published = int(row.moved), int(row.published_position)
    if moved == 0:
        return Moved("=", "same", f"same as published rank {published}")
    mark, cls = ("▲", "up") if moved > 0 else ("▼", "down")
    return Moved(f"{mark}{abs(moved)}", cls, f"{cls} {abs(moved)} from published rank {published}")


def leaderboard_lines(board: Leaderboard) -> list[Line]:
    groups = board.range_groups
    spans = {id(row): _places(board, g) for g in groups for row in g} if groups else None
    rows = list(board.rows)  # who leads whom: on the published order only (its ranges)
    calls = next_calls(rows) if board.by_pa else [None] * len(rows)
    lines = []
    for i, (row, call) in enumerate(zip(rows, calls, strict=True)):
        after = rows[i + 1] if i + 1 < len(rows) else None
        stale, cells = row.stale_cells, row.cells
        lines.append(
            Line(
                row=row,
                close_next=after.product.name if call and call.close and after else "",
                moved=_moved(row) if board.weighted else None,
                group=None if spans is None else spans.get(id(row), ""),
                stale=tally.round_half_up(100 * stale / cells) if stale and cells else 0,
            )
        )
    return lines


def range_group_whos(board: Leaderboard) -> list[str]:
    """Each range group's products (``A, B and C``), or its places when there are many."""
    return [
        names_of(rows) if len(rows) <= GROUP_NAMES_MAX else f"Places {_places(board, rows)}"
        for rows in board.range_groups
    ]


def _places(board: Leaderboard, group: Sequence[BoardRow]) -> str:
    """The places a range group spans, ``2–4``."""
    first = board.rows.index(group[0]) + 1
    return f"{first}–{first + len(group) - 1}"


def names_of(rows: Sequence[BoardRow]) -> str:
    """``A, B and C``."""
    names = [r.product.name for r in rows]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


@dataclass(frozen=True)
class PersonaCard:
    result: PersonaResult
    tie_break: str  # what put the winner ahead of a runner-up of the same score, "" when not tied
    call: str  # "close", "leads", or "" with no runner-up to call
    spread: dict[str, Any] | None  # the winner's range over this persona's stories, for its bar
    few: bool  # fewer than ``FEW_STORIES`` stories decide it


def persona_card_list(
    persona_results: Iterable[PersonaResult], board: Leaderboard | None = None
) -> list[PersonaCard]:
    """Each persona's card; a tie falls to ``board``'s PA Scores."""
    scores = {row.product_id: row for row in (board.rows if board is not None else [])}
    cards = []
    for r in persona_results:
        winner, runner_up = r.winner, r.runner_up
        tie_break, call = "", ""
        if winner and runner_up:
            pa = [getattr(scores.get(p.pk), "pa_score", None) for p in (winner, runner_up)]
            decided_by = persona_decided_by(r.winner_score, r.runner_up_score, *pa)
            tie_break = _TIE_BREAKS[decided_by] if decided_by else ""
            called = persona_call(r, scores)
            call = "" if called is None else "close" if called.close else "leads"
        ranges = getattr(scores.get(winner.pk), "persona_ranges", None) if winner else None
        rng = (ranges or {}).get(r.persona.slug)
        cards.append(
            PersonaCard(
                result=r,
                tie_break=tie_break,
                call=call,
                spread=ranged(r.winner_score, rng) if rng and r.winner_score is not None else None,
                few=int(r.story_count) < FEW_STORIES,
            )
        )
    return cards
