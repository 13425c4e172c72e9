"""The comparison of two to six products: its score table and its rounds, a ``<tbody>`` per
category (the story, its weight and each product's cell, the best marked), and its pickers."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence

from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from arena import scoring
from arena.selectors.cells import CellLine
from arena.selectors.compare import ManyComparison, ManyRow
from arena.selectors.matrix import CategoryBlock
from products.models import Product
from web.pages import links
from web.pages.badges import matrix_badge, verdict_class
from web.pages.markup import category_tally, esc, score_text
from web.pages.ranges import ranged
from web.pages.shapes import name_of, slug_of


def compare_url(arena: str, products: Iterable[object]) -> str:
    """The comparison of ``products`` (products, or leaderboard rows with ``.product``) in that
    order (see ``links.compare_url``)."""
    return links.compare_url(arena, (slug_of(getattr(p, "product", p)) for p in products))


def _top(values: Sequence[int | None]) -> int | None:
    """The highest of some scores (None when there is none, or when they are all equal)."""
    known = [v for v in values if v is not None]
    if len(set(known)) < 2:
        return None
    return max(known)


def _score_cells(values: Sequence[int | None], fmt: Callable[[int | None], str]) -> str:
    """A row of the score table: each value (``fmt`` writes it), the highest marked in text."""
    top = _top(values)
    return "".join(
        f'<td class="num top">{fmt(v)}<span class="visually-hidden"> (highest)</span>'
        '<span class="top-mark" aria-hidden="true"> ▲</span></td>'
        if v is not None and v == top
        else f'<td class="num">{fmt(v)}</td>'
        for v in values
    )


def _num(v: int | None) -> str:
    return esc(score_text(v))


def _pa_cells(cmp: ManyComparison) -> str:
    """The PA Score row: each score with its range; "▲ leads" only on the product that leads
    every other one by the one rule (``scoring.pair_call``), not on the highest score."""
    out = []
    for p, s in cmp.standings.items():
        r = s.ranged
        rng = (
            (r.low, r.high) if r is not None and r.low is not None and r.high is not None else None
        )
        text = ranged(s.pa_score, rng)
        if cmp.leader is not None and p.pk == cmp.leader.pk:
            out.append(f'<td class="num top">{text}<span class="lead-mark">▲ leads</span></td>')
        else:
            out.append(f'<td class="num">{text}</td>')
    return "".join(out)


def compare_call(cmp: ManyComparison) -> SafeString:
    """Who leads among the products compared, by the one rule: the one whose lowest possible PA
    Score is above every other's highest, or "too close to call"."""
    how = f'<a href="{reverse("methodology")}#who-leads">who leads</a>'
    if cmp.leader is not None:
        others = [p for p in cmp.products if p.pk != cmp.leader.pk]
        whom = esc(others[0].name) if len(others) == 1 else "every other product here"
        return mark_safe(
            f"<strong>{esc(cmp.leader.name)} leads</strong> {whom}: its lowest possible PA Score "
            f"is above {'the other’s' if len(others) == 1 else 'each one’s'} highest ({how})."
        )
    return mark_safe(
        "<strong>Too close to call</strong>: no product’s lowest possible PA Score is above every "
        f"other’s highest, so how the unverified cells turn out could change who is first ({how})."
    )


def compare_scores(cmp: ManyComparison) -> SafeString:
    """The comparison's score table's rows: the stored PA Score, the rounds each product is best in
    (alone, shared) and their weights, then each category's stored score; the highest of each row
    marked "▲" (and "highest" for screen readers), not by colour."""
    standings = list(cmp.standings.values())
    rows = [
        '<tr class="pa"><th scope="row" class="sticky-col">PA Score'
        ' <span class="col-kind">with its range</span></th>'
        f"{_pa_cells(cmp)}</tr>",
        '<tr><th scope="row" class="sticky-col">Rounds best'
        ' <span class="col-kind">alone + shared</span></th>'
        + "".join(
            f'<td class="num">{int(s.best)}'
            + (f' <span class="muted">+ {int(s.shared)} shared</span>' if s.shared else "")
            + "</td>"
            for s in standings
        )
        + "</tr>",
        '<tr class="weighted-row"><th scope="row" class="sticky-col">Weighted'
        ' <span class="col-kind">Σ weights of rounds best</span></th>'
        f"{_score_cells([s.weighted for s in standings], str)}</tr>",
    ]
    rows.extend(
        f'<tr><th scope="row" class="sticky-col"><span class="col-kind">category</span>'
        f" {esc(name)}</th>"
        f"{_score_cells([s.category_scores.get(name) for s in standings], _num)}</tr>"
        for name in cmp.categories
    )
    return mark_safe("\n".join(rows))  # every interpolated value is escaped or an int


def _many_tally(t: scoring.ManySummary, names: Mapping[scoring.ProductKey, str]) -> str:
    """``Inngest best in 3 (+1 shared) · Hatchet 0 · 2 drawn`` for one category's rounds."""
    parts = []
    for key, standing in t.standings.items():
        shared = f" (+{int(standing.shared)} shared)" if standing.shared else ""
        parts.append(f"{names[key]} {int(standing.best)}{shared}")
    return f"Best in: {' · '.join(parts)} · {int(t.drawn)} drawn"


def _many_cell(cell: CellLine | None, best: bool, shared: bool, cells: str) -> str:
    """One product's cell of a round: its badge linking to its proof page, and "best" or "shared
    best" when it is (in words; the colour of the cell's edge only repeats it)."""
    if cell is None:
        return '<td class="c"><span class="muted">no verdict</span></td>'
    # the matrix's short badge, ``✓ full C 8/10``, its colours on the cell
    cls = f"c {verdict_class(cell.verdict)}"
    mark = ""
    if best:
        cls += " best"
        word = "shared best" if shared else "best"
        mark = f'<span class="best-mark"><span aria-hidden="true">★</span> {word}</span>'
    return (
        f'<td class="{cls}"><a href="{cells}{int(cell.pk)}/">'
        f"{matrix_badge(cell.verdict, cell.proof, cell.quality)}</a>{mark}</td>"
    )


def _round(row: ManyRow, products: Sequence[Product], stories: str, cells: str) -> str:
    """One round: the story with its persona, its weight and each product's cell in column
    order, the best marked "best" or "shared best", a drawn round "= drawn"."""
    story = row.story
    by = {c.product_id: c for c in row.cells}
    best = {p.pk for p in row.best}
    drawn = (
        ' <span class="drawn-mark"><span aria-hidden="true">=</span> drawn</span>'
        if row.drawn
        else ""
    )
    return (
        f'<tr class="round{" drawn" if row.drawn else ""}">'
        f'<th scope="row" class="story-col"><span class="persona">'
        f"{esc(story.persona.slug)}</span> "
        f'<a href="{stories}{int(story.pk)}/">{esc(story.text)}</a>{drawn}</th>'
        f'<td class="num w"><span class="visually-hidden">weight </span>'
        f"{int(story.weight)}</td>"
        + "".join(_many_cell(by.get(p.pk), p.pk in best, row.shared, cells) for p in products)
        + "</tr>"
    )


def _row_heading(name: str, level: int) -> str:
    """A heading row's name (``name`` escaped): a heading to assistive tech, a span to HTML, which
    allows no ``h3``/``h4`` inside a ``th``."""
    return f'<span class="row-heading" role="heading" aria-level="{level}">{name}</span>'


def _category_head(
    block: CategoryBlock, cmp: ManyComparison, names: Mapping[scoring.ProductKey, str]
) -> str:
    """A category's ``<tbody>`` and heading row, with its tally over all its rounds."""
    cat = block.category
    pk = int(cat.pk)
    ncols = len(cmp.products) + 2
    tally = category_tally(
        cmp.tallies, pk, block.count, cmp.differences_only, lambda t: _many_tally(t, names)
    )
    return (
        f'<tbody id="cmp-cat-{pk}"><tr class="cat-row"><th colspan="{ncols}" scope="colgroup">'
        f'<div class="sticky-left">{_row_heading(esc(cat.name), 3)}'
        f' <span class="cat-tally">{tally}</span></div></th></tr>'
    )


def compare_rounds(cmp: ManyComparison, arena: str) -> SafeString:
    """Every category of a comparison (``cmp.blocks``, the rounds shown) as a ``<tbody>``: its
    heading with its tally, each sub-group's heading, then a row per round (``arena``: the slug,
    for the stories' links)."""
    names: dict[scoring.ProductKey, str] = {p.pk: esc(p.name) for p in cmp.products}
    ncols = len(cmp.products) + 2
    cells = links.cells_prefix()
    stories = links.url_prefix("story-detail", arena)
    out = []
    for block in cmp.blocks:
        out.append(_category_head(block, cmp, names))
        for group in block.groups:
            if group.subgroup:
                out.append(
                    f'<tr class="sub-row"><th colspan="{ncols}" scope="colgroup">'
                    f'<div class="sticky-left">{_row_heading(esc(name_of(group.subgroup)), 4)}</div></th></tr>'
                )
            out.extend(_round(row, cmp.products, stories, cells) for row in group.rows)
        out.append("</tbody>")
    return mark_safe("\n".join(out))  # every interpolated value is escaped or an int


def picked_first(
    products: Iterable[Product], picked: Sequence[Product]
) -> list[tuple[Product, bool]]:
    """The comparison's product picker's order: the ``picked`` products (in their order, ticked)
    first, then the others, so that the form sends them in the order they are shown."""
    chosen = {p.pk for p in picked}
    return [(p, True) for p in picked] + [(p, False) for p in products if p.pk not in chosen]


def pairs(products: Sequence[Product]) -> list[tuple[Product, Product]]:
    """Every pair of the compared products, in column order (their head-to-heads' links)."""
    return list(itertools.combinations(products, 2))
