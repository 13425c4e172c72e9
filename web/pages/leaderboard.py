"""The arena page's leaderboard: its rows (``Leaderboard.rows``, stored scores in the asked
order), the notes on overlapping ranges, the "Rank by" menu and the weights panel.

Written in Python rather than by template loops: a row is a dozen cells, each a few values."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from django.utils.safestring import SafeString, mark_safe

from arena import scoring
from arena.selectors import Leaderboard
from arena.selectors.calls import next_calls
from arena.selectors.leaderboard import BoardRow
from arena.text import format_figure
from products.models import Product
from stories import freshness
from web.pages import links
from web.pages.disputes import open_disputes_html
from web.pages.markup import esc, options, score_text
from web.pages.ranges import ranged

# A range group of more products than this is given by its places and its ends, not every name.
GROUP_NAMES_MAX = 6


def _moved(row: BoardRow) -> str:
    """How far a row moved from its published rank: ``▲2`` / ``▼1`` / ``=``, in words for
    screen readers."""
    moved, published = int(row.moved), int(row.published_position)
    if moved > 0:
        mark, cls, words = f"▲{moved}", "up", f"up {moved} from published rank {published}"
    elif moved < 0:
        mark, cls = f"▼{-moved}", "down"
        words = f"down {-moved} from published rank {published}"
    else:
        mark, cls, words = "=", "same", f"same as published rank {published}"
    return (
        f'<span class="moved {cls}"><span aria-hidden="true">{mark}</span>'
        f'<span class="visually-hidden">{words}</span></span>'
    )


def _group_spans(board: Leaderboard) -> dict[int, str]:
    """Each row's range group as the places it spans (``"2–4"``), for groups of two or more."""
    spans: dict[int, tuple[int, int]] = {}
    for i, row in enumerate(board.rows):
        group = getattr(row, "range_group", None)
        if group is not None:
            first, _ = spans.get(group, (i + 1, i + 1))
            spans[group] = (first, i + 1)
    return {g: f"{a}–{b}" for g, (a, b) in spans.items() if b > a}


def _popularity(p: Product) -> str:
    out = []
    if p.stars is not None:
        out.append(f'<span title="GitHub stars">★ {esc(format_figure(p.stars))}</span> ')
    if p.stars_growth is not None:
        out.append(
            f'<span title="stars gained per year">▲ {esc(format_figure(p.stars_growth))}/yr</span> '
        )
    if p.npm_weekly is not None:
        out.append(
            f'<span title="npm downloads per week">npm {esc(format_figure(p.npm_weekly))}/wk</span> '
        )
    if p.pypi_weekly is not None:
        out.append(
            f'<span title="PyPI downloads per week">pypi {esc(format_figure(p.pypi_weekly))}/wk</span>'
        )
    return "".join(out)


def _stale_share(row: BoardRow) -> str:
    """A product's stale cells beside its verified share (``· 3 stale (8%)``), when some of its
    cells' evidence is older than ``EVIDENCE_STALE_DAYS``; nothing when none is."""
    stale, cells = getattr(row, "stale_cells", 0), getattr(row, "cells", 0)
    if not stale or not cells:
        return ""
    share = scoring.round_half_up(100 * stale / cells)
    return (
        f' <span class="nw stale-share-lb">· {int(stale)} stale ({share}%)'
        f'<span class="visually-hidden"> of {int(cells)} judged cells: evidence older than '
        f"{int(freshness.stale_days())} days</span></span>"
    )


def evidence_share_html(published: int, judged: int) -> str:
    """Beside the verified count, how many of the product's judged cells have published evidence
    (a quote or a rationale, ``stories.values.Backing``): ``· 5/51 with published evidence (10%)``."""
    share = scoring.evidence_share(published, judged)
    if share is None:
        return ""
    return (
        f' <span class="nw evidence-share">· {int(published)}/{int(judged)} with published'
        f" evidence ({share}%)</span>"
    )


def _evidence_share(row: BoardRow) -> str:
    """``evidence_share_html`` of a row (nothing for a stand-in that does not know it)."""
    return evidence_share_html(getattr(row, "published_evidence", 0), getattr(row, "judged", 0))


def evidence_share(published: int, judged: int) -> SafeString:
    """``evidence_share_html`` for a template (the product page)."""
    # every interpolated value is an int
    return mark_safe(evidence_share_html(published, judged))


def _in_favour(row: BoardRow) -> str:
    """Beside integrity, how many of the product's upheld corrections went in its favour
    (``· 1 correction in its favour``), when any did: they never lowered it."""
    n = int(getattr(row, "upheld_in_favour", 0) or 0)
    if not n:
        return ""
    return (
        f' <span class="nw in-favour">· {n} correction{"s" if n > 1 else ""} in its favour</span>'
    )


def _product_head(row: BoardRow, products: str, pairs: str) -> str:
    """The product's cell: its name linking to its page, its tier and its head-to-head link."""
    p = row.product
    head = f'<a class="pname" href="{products}{esc(p.slug)}/">{esc(p.name)}</a>'
    if p.tier:
        head += f' <span class="badge">{esc(p.tier)}</span>'
    if row.vs:
        head += (
            f' <a class="vs" href="{pairs}{esc(p.slug)}-vs-{esc(row.vs.slug)}/"'
            f' aria-label="{esc(p.name)} vs {esc(row.vs.name)}: head-to-head">'
            f'vs {esc(row.vs.name)} <span aria-hidden="true">↗</span></a>'
        )
    return head


_RANKED = ' class="num ranked"'


def _ranked_by(board: Leaderboard, row: BoardRow, groups: dict[int, str] | None) -> str:
    """Each persona's score, the ranked category's and the range group's places."""
    scores = row.persona_scores or {}
    persona = board.persona
    out = "".join(
        f"<td{_RANKED if slug == persona else ' class="num"'}>"
        f"{esc(score_text(scores.get(slug)))}</td>"
        for slug in board.personas
    )
    if board.category:
        score = (row.category_scores or {}).get(board.category)
        out += f"<td{_RANKED}>{esc(score_text(score))}</td>"
    if groups is not None:
        span = groups.get(row.range_group) if row.range_group is not None else None
        out += (
            f'<td class="num group">{span}</td>'
            if span
            else '<td class="num group"><span aria-hidden="true">—</span>'
            '<span class="visually-hidden">alone</span></td>'
        )
    return out


def _rank(row: BoardRow, published: bool) -> str:
    """The row's place; on the published order, the ranks it could take beside it
    (``2 (could be 1–4)``, stored as ``rank_best``/``rank_worst``; nothing when not stored or
    when the range is just its place)."""
    position = int(row.position)
    place = str(position)
    if row.tied:
        place = (
            f'<span aria-hidden="true">=</span><span class="visually-hidden">tied at </span>'
            f"{position}"
        )
    best, worst = getattr(row, "rank_best", None), getattr(row, "rank_worst", None)
    if not published or best is None or worst is None or best == worst:
        return place
    return f'{place} <span class="rank-range nw">(could be {int(best)}–{int(worst)})</span>'


def _close_next(call: scoring.Call | None, after: BoardRow | None) -> str:
    """`` · too close to call with B``: the row's lead over the next one is not settled
    (``scoring.pair_call`` on their PA Score ranges)."""
    if call is None or not call.close or after is None:
        return ""
    return f' <span class="close-next">too close to call with {esc(after.product.name)}</span>'


def leaderboard_rows(
    board: Leaderboard, arena: str, open_disputes: Mapping[int, int] | None = None
) -> SafeString:
    """The leaderboard's ``<tr>`` rows: rank, product with its tier and head-to-head link, with a
    visitor's weights their score and how far the row moved, the PA Score with its range, each
    persona's score, the ranked category's, the range group, popularity, verified share,
    integrity and confidence; the ranked column marked. ``arena``: the arena's slug;
    ``open_disputes``: each product's open disputes (a count linking to them)."""
    products = links.url_prefix("product-detail", arena)
    pairs = links.head_to_head_prefix(arena)
    weighted = getattr(board, "weighted", False)
    pa = _RANKED if board.by_pa else ' class="num"'
    verified = ' class="ranked"' if board.by_verified else ' class=""'
    integrity = ' class="ranked"' if board.by_integrity else ' class=""'
    groups = _group_spans(board) if getattr(board, "range_groups", None) else None
    # who leads whom is said on the published order only (the PA Score's ranges)
    published = board.by_pa and not weighted
    rows = list(board.rows)
    calls = next_calls(rows) if published else [None] * len(rows)
    out = []
    for i, row in enumerate(rows):
        after = rows[i + 1] if i + 1 < len(rows) else None
        disputed = (
            f' <span class="nw">· {int(row.disputed)} disputed</span>' if row.disputed else ""
        )
        grade = esc(row.confidence)
        mine = ""
        if weighted:
            mine = (
                f"<td{_RANKED}>{ranged(row.personal_score, row.personal_range)}</td>"
                f'<td class="num moved-col">{_moved(row)}</td>'
            )
        out.append(
            f'<tr><td class="num rank">{_rank(row, published)}</td>'
            f'<th scope="row" class="sticky-col product">{_product_head(row, products, pairs)}'
            f"{_close_next(calls[i], after)}"
            f"{open_disputes_html(arena, row.product, open_disputes)}</th>{mine}<td{pa}>{ranged(row.pa_score, getattr(row, 'pa_range', None))}</td>"
            f"{_ranked_by(board, row, groups)}"
            f'<td class="pop">{_popularity(row.product)}</td>'
            f'<td{verified}><span class="nw">{int(row.verified)}/{int(row.with_evidence)}'
            f" verified</span>{disputed}{_evidence_share(row)}{_stale_share(row)}</td>"
            f'<td{integrity}><span class="nw">{esc(score_text(row.integrity))} integrity</span>'
            f"{_in_favour(row)}</td>"
            f'<td><span class="grade grade-{grade}" title="evidence confidence {grade}">{grade}'
            "</span></td></tr>"
        )
    return mark_safe("\n".join(out))


def _product_names(rows: Sequence[BoardRow]) -> str:
    """``A, B and C``, escaped."""
    names = [esc(r.product.name) for r in rows]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def range_group_notes(board: Leaderboard) -> SafeString:
    """Under the leaderboard, one sentence per range group: whose ranges overlap."""
    out = []
    for rows in board.range_groups:
        first = board.rows.index(rows[0]) + 1
        if len(rows) <= GROUP_NAMES_MAX:
            who = _product_names(rows)
        else:
            who = f"Places {first}–{first + len(rows) - 1}"
        out.append(f"{who}: ranges overlap; the evidence does not settle their order.")
    return mark_safe(" ".join(out))


def rank_options(board: Leaderboard) -> SafeString:
    """The "Rank by" menu's option groups (``Leaderboard.options``), the key in effect selected."""
    # while a visitor's weights rank the board, they replace the rank: a choice that is not one
    # (disabled: the form sends no rank, and picking a rank replaces the weights)
    weighted = getattr(board, "weighted", False)
    head = '<option value="" disabled selected>Your weights</option>\n' if weighted else ""
    selected = "" if weighted else board.key
    return mark_safe(
        head
        + "\n".join(
            f'<optgroup label="{esc(group)}">'
            f"{options(((o.key, o.label) for o in choices), selected)}</optgroup>"
            for group, choices in board.options
        )
    )


def persona_heads(board: Leaderboard) -> SafeString:
    """The leaderboard's head cell of each persona's score, the one ranked by marked."""
    ranked = board.persona
    sorted_ = ' aria-sort="descending"'
    return mark_safe(
        "".join(
            '<th scope="col" class="num" aria-describedby="term-persona"'
            f"{sorted_ if persona == ranked else ''}>"
            f'<span class="col-kind">persona</span> {esc(persona)}</th>'
            for persona in board.personas
        )
    )


def tie_notes(board: Leaderboard) -> SafeString:
    """Under the leaderboard, one ``<li>`` per group of rows sharing a rank: ``=2: A and B tie on
    PA Score; listed by ...``."""
    label = esc(board.label)
    return mark_safe(
        "".join(
            f"<li>={int(rank)}: {_product_names(rows)} tie on {label}; listed by "
            f"{esc(decided_by)}.</li>"
            for rank, rows, decided_by in board.ties
        )
    )
