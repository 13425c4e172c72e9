"""The arena page's leaderboard (``arena/detail.html`` draws it): what each row shows beyond the
stored row (``Leaderboard.rows``, stored scores in the asked order), the range groups' and ties'
notes, and the "Rank by" menu's choices."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena import scoring
from arena.selectors import Leaderboard
from arena.selectors.calls import next_calls
from arena.selectors.leaderboard import BoardRow
from web.pages import links

# A range group of more products than this is given by its places and its ends, not every name.
GROUP_NAMES_MAX = 6


@dataclass(frozen=True)
class Moved:
    """How far a row moved from its published rank, its mark and its words (``▲2``)."""

    mark: str
    cls: str  # "up", "down", "same"
    words: str


@dataclass(frozen=True)
class Line:
    """One row of the leaderboard as the template draws it."""

    row: BoardRow
    url: str  # the product's page
    vs_url: str  # its head-to-head with ``row.vs``, "" when none
    could_be: tuple[int, int] | None  # the ranks it could take, on the published order
    close_next: str  # the next product's name when their order is too close to call
    moved: Moved | None  # with a visitor's weights
    personas: list[tuple[int | None, bool]]  # each persona's score, whether it ranks the board
    category: int | None  # the ranked category's score
    group: str | None  # the places its range group spans ("2–4"), "" alone, None: no groups
    stale: int  # its stale cells' share of its judged cells, 0 for none


def _moved(row: BoardRow) -> Moved:
    moved, published = int(row.moved), int(row.published_position)
    if moved > 0:
        return Moved(f"▲{moved}", "up", f"up {moved} from published rank {published}")
    if moved < 0:
        return Moved(f"▼{-moved}", "down", f"down {-moved} from published rank {published}")
    return Moved("=", "same", f"same as published rank {published}")


def _group_spans(board: Leaderboard) -> dict[int, str]:
    """Each row's range group as the places it spans (``"2–4"``), for groups of two or more."""
    spans: dict[int, tuple[int, int]] = {}
    for i, row in enumerate(board.rows):
        group = getattr(row, "range_group", None)
        if group is not None:
            first, _ = spans.get(group, (i + 1, i + 1))
            spans[group] = (first, i + 1)
    return {g: f"{a}–{b}" for g, (a, b) in spans.items() if b > a}


def _could_be(row: BoardRow, published: bool) -> tuple[int, int] | None:
    """On the published order, the ranks the row could take (stored as ``rank_best``/
    ``rank_worst``; None when not stored or when the range is just its place)."""
    best, worst = getattr(row, "rank_best", None), getattr(row, "rank_worst", None)
    if not published or best is None or worst is None or best == worst:
        return None
    return int(best), int(worst)


def _stale_share(row: BoardRow) -> int:
    stale, cells = getattr(row, "stale_cells", 0), getattr(row, "cells", 0)
    return scoring.round_half_up(100 * stale / cells) if stale and cells else 0


def leaderboard_lines(board: Leaderboard, arena: str) -> list[Line]:
    """The leaderboard's rows with what each shows beside its stored figures (``arena``: the
    arena's slug)."""
    products = links.url_prefix("product-detail", arena)
    pairs = links.head_to_head_prefix(arena)
    groups = _group_spans(board) if getattr(board, "range_groups", None) else None
    # who leads whom is said on the published order only (the PA Score's ranges)
    published = board.by_pa and not getattr(board, "weighted", False)
    rows = list(board.rows)
    calls = next_calls(rows) if published else [None] * len(rows)
    lines = []
    for i, row in enumerate(rows):
        p, call = row.product, calls[i]
        after = rows[i + 1] if i + 1 < len(rows) else None
        scores = row.persona_scores or {}
        group = None
        if groups is not None:
            group = groups.get(row.range_group, "") if row.range_group is not None else ""
        lines.append(
            Line(
                row=row,
                url=f"{products}{p.slug}/",
                vs_url=f"{pairs}{p.slug}-vs-{row.vs.slug}/" if row.vs else "",
                could_be=_could_be(row, published),
                close_next=after.product.name if call and call.close and after else "",
                moved=_moved(row) if getattr(board, "weighted", False) else None,
                personas=[(scores.get(s), s == board.persona) for s in board.personas],
                category=(row.category_scores or {}).get(board.category)
                if board.category
                else None,
                group=group,
                stale=_stale_share(row),
            )
        )
    return lines


def evidence_share(published: int, judged: int) -> dict[str, object]:
    """What ``arena/_evidence_share.html`` says beside a verified count: how many of the
    product's judged cells have published evidence (a quote or a rationale,
    ``stories.values.Backing``), ``· 5/51 with published evidence (10%)``."""
    share = scoring.evidence_share(published, judged)
    return {"published": published, "judged": judged, "share": share}


def range_group_whos(board: Leaderboard) -> list[str]:
    """Under the leaderboard, each range group's products (``A, B and C``), or its places when
    it holds more than ``GROUP_NAMES_MAX``."""
    out = []
    for rows in board.range_groups:
        first = board.rows.index(rows[0]) + 1
        if len(rows) <= GROUP_NAMES_MAX:
            out.append(names_of(rows))
        else:
            out.append(f"Places {first}–{first + len(rows) - 1}")
    return out


def names_of(rows: Sequence[BoardRow]) -> str:
    """``A, B and C``."""
    names = [r.product.name for r in rows]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
