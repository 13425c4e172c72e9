"""Two to six products compared (``arena/compare.html``); the head-to-head's sections and rounds."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.utils.safestring import SafeString, mark_safe

from arena.selectors.cells import CellLine
from arena.selectors.compare import CompareRow, Comparison
from web.pages import links
from web.pages.cells import card, esc, freshness_now, matrix_badge, verdict_class


def _marked(values: Sequence[int | None]) -> list[tuple[int | None, bool]]:
    """A row of the score table: each value and whether it is the highest (none when all equal)."""
    known = {v for v in values if v is not None}
    top = max(known) if len(known) > 1 else None
    return [(v, v is not None and v == top) for v in values]


def compare_scores(cmp: Comparison) -> dict[str, list]:
    """The score table's rows (PA Score, range, lead; weights of rounds best; categories), top marked."""
    standings = cmp.standings.values()
    return {
        "pa": [
            (s.pa_score, (s.ranged.low, s.ranged.high), p == cmp.leader)
            for p, s in cmp.standings.items()
        ],
        "weighted": _marked([s.weighted for s in standings]),
        "categories": [
            (name, _marked([s.category_scores.get(name) for s in standings]))
            for name in cmp.categories
        ],
    }


def _many_cell(cell: CellLine | None, best: bool, shared: bool, cells: str) -> str:
    """One product's cell of a round, its badge linking to its proof, "best" said in words."""
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


_DRAWN = ' <span class="drawn-mark"><span aria-hidden="true">=</span> drawn</span>'


def compare_rows(rows: Iterable[CompareRow], cmp: Comparison, arena: str) -> SafeString:
    """A sub-group's rounds: the story with its persona, its weight and each product's cell."""
    cells = links.cells_prefix()
    stories = links.url_prefix("story-detail", arena)
    out = []
    for row in rows:
        story, by = row.story, {c.product_id: c for c in row.cells}
        out.append(
            f'<tr class="round{" drawn" if row.drawn else ""}">'
            f'<th scope="row" class="story-col"><span class="persona">'
            f"{esc(story.persona.slug)}</span> "
            f'<a href="{stories}{int(story.pk)}/">{esc(story.text)}</a>'
            f"{_DRAWN if row.drawn else ''}</th>"
            f'<td class="num w"><span class="visually-hidden">weight </span>'
            f"{int(story.weight)}</td>"
            + "".join(
                _many_cell(by.get(p.pk), p in row.best, row.shared, cells) for p in cmp.products
            )
            + "</tr>"
        )
    return mark_safe("\n".join(out))


def round_cards(row: CompareRow, cmp: Comparison) -> list[dict[str, object]]:
    """One round's cards, in column order (a head-to-head's ``a`` first)."""
    now = freshness_now()
    return [card(c, cmp.sources, row.story.text, now) for c in row.cells]
