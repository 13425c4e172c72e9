"""The arena page's story matrix (and the product page's one column of it): a ``<tbody>`` per
category, a row per story, a cell per product linking to its proof.

Written in Python rather than by template loops: the big arena's matrix is 300 rows of 30 cells,
and this is several times faster than a template (docs/architecture.md gives the figure)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date

from django.utils.safestring import SafeString, mark_safe

from arena.selectors.cells import CellLine
from arena.selectors.matrix import CategoryBlock, Matrix, MatrixRow
from stories import freshness
from stories.values import Backing, Verdict
from web.pages import links
from web.pages.badges import BACKING_SYMBOLS, matrix_badge, matrix_words, verdict_class
from web.pages.cards import story_name
from web.pages.disputes import open_disputes_html
from web.pages.freshness import NO_DATE, AsOf, freshness_now, stale_title
from web.pages.markup import esc, plural
from web.pages.shapes import name_of, persona_name

# What backs each cell, as a compact mark after its badge (the legend's "Backing" column gives
# the marks' words; the cell link's accessible name says them).
BACKING_MARKS = {b: f" {BACKING_SYMBOLS[b]}" for b in Backing}
# On a phone each category shows its first few stories' cards and a link to the rest (the page
# with that category alone, which shows them all): a reader scrolls a few screens, not dozens.
PHONE_STORIES = 2

# A table's rows of some stories (the rows of one sub-group) as ``<tr>`` elements.
RowsOf = Callable[[Sequence[MatrixRow]], list[str]]


@functools.lru_cache(maxsize=1024)
def _cell_parts(
    verdict: str, proof: str | None, quality: int | None, backing: str | None
) -> tuple[str, str, str]:
    """What a matrix cell writes of its judgement, the same few dozen strings for a whole table:
    its ``<td`` up to its product's name, its badge and backing mark, and its judgement in words
    after the name (``, full, probed, 9/10, a quote``). ``backing``: a ``Backing`` or its value
    (hashed as plain text: an enum member's hash is a Python call)."""
    backed_by = Backing(backing) if backing is not None else None
    mark = BACKING_MARKS[backed_by] if backed_by is not None else ""
    backed = f", {esc(backed_by.label)}" if backed_by is not None else ""
    return (
        f'<td class="{verdict_class(verdict)}" data-p="',
        f"{matrix_badge(verdict, proof, quality)}{mark}",
        f", {matrix_words(verdict, proof, quality)}{backed}",
    )


# Where a table's cells link and when their evidence goes stale: the cells' URL prefix, today and
# the stale cut-off date (``freshness.stale_before``), worked out once per table, not per row.
type CellsAt = tuple[str, date, date]


def cells_at() -> CellsAt:
    """See ``CellsAt``."""
    today, days = freshness_now()
    return links.cells_prefix(), today, freshness.stale_before(today=today, days=days)


def cells_html(
    cells: Iterable[CellLine],
    flag_controls: bool,
    labels: dict[int, str],
    story: str = "",
    at: CellsAt | None = None,
) -> str:
    """The ``<td>`` of each cell, linking to its proof page (its marks, then for screen readers
    the product and the judgement in words) and, with ``flag_controls``, with a small flag control named for the
    product and ``story`` (the story's escaped short name). ``labels``: products' escaped names
    by key, filled as they come; each ``<td>`` carries its product's name (``data-p``), which
    a phone's story card shows beside the verdict. A cell whose evidence is stale carries a
    small "stale" mark, its age on hover. ``at``: ``cells_at()`` when the caller writes many rows."""
    prefix, today, cutoff = at or cells_at()
    on = f" on &ldquo;{story}&rdquo;" if story else ""
    out: list[str] = []
    append = out.append
    na = Verdict.NA.value
    for c in cells:
        pk = c.pk if type(c.pk) is int else int(c.pk)
        product = c.product
        label = labels.get(id(product))  # (the table's cells share each product's instance)
        if label is None:
            label = labels[id(product)] = esc(product.name)
        verdict = c.verdict
        # what backs it as its read computed it (else as its property works it out; a stand-in
        # may not know it)
        backing = getattr(c, "backing_read", None) or getattr(c, "backing", None)
        td, badge, words = _cell_parts(verdict, c.proof, c.quality, backing)
        as_of: AsOf = getattr(c, "evidence_as_of", NO_DATE)  # (a stand-in may not read it)
        flag = (
            f'<a class="flag-mini" href="{prefix}{pk}/flag/" aria-label="Flag {label}{on}">⚑</a>'
            if flag_controls
            else ""
        )
        # (``freshness.is_stale`` with its cut-off date worked out once for the whole table)
        if as_of is not NO_DATE and verdict != na and (as_of is None or as_of < cutoff):
            append(
                f'{td}{label}"><a href="{prefix}{pk}/">{badge}'
                f' <small class="stale-mark" title="{stale_title(as_of, today)}">stale</small>'
                f'<span class="visually-hidden">: {label}{words}, stale evidence</span></a>'
                f"{flag}</td>"
            )
        else:
            append(
                f'{td}{label}"><a href="{prefix}{pk}/">{badge}'
                f'<span class="visually-hidden">: {label}{words}</span></a>{flag}</td>'
            )
    return "".join(out)


def matrix_cells(row: MatrixRow, flag_controls: bool = False) -> SafeString:
    """The ``<td>`` of every cell of one matrix row (see ``cells_html``; ``site.js`` opens a flag
    control's form in the flag dialog)."""
    # every interpolated value is escaped or an int
    return mark_safe(cells_html(row.cells, flag_controls, {}))


def _category_head(block: CategoryBlock, matrix_links: links.MatrixLinks) -> str:
    """A category's heading with its story count and a "Hide" link that folds it; a collapsed
    one's with the link that loads its rows (without JavaScript, the page with it unfolded)."""
    category = block.category
    pk = int(category.pk)
    name = esc(category.name)
    count = plural(block.count, "story", "stories")
    extra = f' <span class="blurb">{esc(category.blurb)}</span>' if category.blurb else ""
    if not block.collapsed:
        fold = esc(matrix_links.fold_url(block.slug))
        extra = (
            f' <span class="cat-count">{count}</span>'
            f' <a class="cat-fold" href="{fold}{links.MATRIX_SECTION}" hx-get="{fold}"'
            f' hx-target="#mx-cat-{pk}" hx-select="#mx-cat-{pk}" hx-swap="outerHTML">'
            f'Hide<span class="visually-hidden"> {name}</span></a>{extra}'
        )
    else:
        url = esc(matrix_links.category_url(block.slug))
        unfolded = matrix_links.unfold_url(block.slug)
        href = esc(unfolded) if unfolded is not None else url
        extra += (
            f' <a class="cat-load" href="{href}{links.MATRIX_SECTION}" hx-get="{url}"'
            f' hx-target="#mx-cat-{pk}" hx-swap="outerHTML">'
            f"Show {count}"
            f'<span class="visually-hidden"> of {name}</span></a>'
        )
    # (a heading to assistive tech; no h3 may sit in a th)
    return f'<div class="sticky-left"><span class="row-heading" role="heading" aria-level="3">{name}</span>{extra}</div>'


def _phone_more(block: CategoryBlock, ncols: int, links_: links.MatrixLinks) -> str:
    """The row that ends a category on a phone past its first ``PHONE_STORIES`` stories: a link
    to the page with the category alone (hidden on larger screens, which show every row)."""
    url = esc(links_.category_url(block.slug))
    name = esc(block.category.name)
    return (
        f'<tr class="mx-more-link"><td colspan="{ncols}"><a href="{url}{links.MATRIX_SECTION}">'
        f"All {plural(block.count, 'story', 'stories')} of {name}</a></td></tr>"
    )


def _phone_fold(rows: list[str], shown: int) -> list[str]:
    """``rows`` with those past the first ``PHONE_STORIES`` of their category (``shown`` the
    category's stories before them) marked for a phone to leave out."""
    return [
        row.replace("<tr>", '<tr class="mx-more">', 1) if shown + i >= PHONE_STORIES else row
        for i, row in enumerate(rows)
    ]


def _tbody(
    block: CategoryBlock,
    *,
    ncols: int,
    rows_of: RowsOf,
    links_: links.MatrixLinks,
    fold_phone: bool = True,
) -> str:
    """One category of the matrix as a ``<tbody id="mx-cat-<pk>">``: its heading, then each
    sub-group's heading and rows; a collapsed one its heading alone. With ``fold_phone``, a
    phone shows its first ``PHONE_STORIES`` stories and a link to the rest."""
    pk = int(block.category.pk)
    state = ' class="collapsed"' if block.collapsed else ""
    out = [
        f'<tbody id="mx-cat-{pk}"{state}>'
        f'<tr class="cat-row"><th colspan="{ncols}" scope="colgroup" id="cat-{pk}">'
        f"{_category_head(block, links_)}</th></tr>"
    ]
    if not block.collapsed:
        shown = 0
        fold = fold_phone and block.count > PHONE_STORIES
        for group in block.groups:
            if group.subgroup:
                hide = " mx-more" if fold and shown >= PHONE_STORIES else ""
                out.append(
                    f'<tr class="sub-row{hide}"><th colspan="{ncols}" scope="colgroup">'
                    f'<div class="sticky-left"><span class="row-heading" role="heading" aria-level="4">'
                    f"{esc(name_of(group.subgroup))}</span></div></th></tr>"
                )
            rows = rows_of(group.rows)
            out.extend(_phone_fold(rows, shown) if fold else rows)
            shown += len(rows)
        if fold:
            out.append(_phone_more(block, ncols, links_))
    out.append("</tbody>")
    return "\n".join(out)


def _col_head(matrix: Matrix, arena: str, open_disputes: Mapping[int, int] | None) -> str:
    """The column heads: story (with its user type), each product shown in rank order (the one
    sorting the stories marked), with its open disputes."""
    products = links.url_prefix("product-detail", arena)
    sort = matrix.filters.sort
    return (
        '<tr class="col-head"><th scope="col" class="story-col">Story <span class="sub">'
        "(user type)</span></th>"
        + "".join(
            f'<th scope="col" class="sorted" aria-sort="descending"><a href="{products}{p.slug}/">'
            f'{esc(p.name)}</a> <span aria-hidden="true">▼</span>'
            f"{open_disputes_html(arena, p, open_disputes)}</th>"
            if p.slug == sort
            else f'<th scope="col"><a href="{products}{p.slug}/">{esc(p.name)}</a>'
            f"{open_disputes_html(arena, p, open_disputes)}</th>"
            for p in matrix.products
        )
        + "</tr>"
    )


def _story_rows(arena: str) -> RowsOf:
    """What writes the matrix's rows: each story with its persona's name under it and its cells,
    with flag controls (the personas' and products' escaped names kept for the whole table)."""
    stories = links.url_prefix("story-detail", arena)
    personas: dict[int, str] = {}
    labels: dict[int, str] = {}
    at = cells_at()

    def rows_of(rows: Sequence[MatrixRow]) -> list[str]:
        out = []
        for row in rows:
            story = row.story
            persona = personas.get(story.persona.pk)
            if persona is None:
                persona = personas[story.persona.pk] = esc(persona_name(story.persona))
            name = esc(story_name(story.text))
            out.append(
                f'<tr><th scope="row" class="story-col"><a href="{stories}{int(story.pk)}/">'
                f'{esc(story.text)}</a> <span class="persona-inline">{persona}</span></th>'
                f"{cells_html(row.cells, True, labels, name, at)}</tr>"
            )
        return out

    return rows_of


def matrix_table(
    matrix: Matrix,
    arena: str,
    query: Mapping[str, str] | None = None,
    bodies_only: bool = False,
    open_disputes: Mapping[int, int] | None = None,
) -> SafeString:
    """The arena page's story matrix (``arena_matrix``'s) as one table: a ``<tbody>`` per category
    (see ``_tbody``) under one row of column heads, each story's row with its persona and one cell per product shown, with flag
    controls. ``arena``: the arena's slug; ``query``: what links that load a collapsed category
    carry besides it (filters, ranking, products shown). ``bodies_only``: the ``<tbody>``
    elements alone (what an htmx request for one category swaps in). ``open_disputes``: each
    product's open disputes, counted in its column head."""
    rows_of = _story_rows(arena)
    matrix_links = links.MatrixLinks(arena, query or {})
    ncols = len(matrix.products) + 1
    bodies = "\n".join(
        _tbody(
            b,
            ncols=ncols,
            rows_of=rows_of,
            links_=matrix_links,
            fold_phone=not matrix.filters.category,
        )
        for b in matrix.blocks
    )
    if bodies_only:
        return mark_safe(bodies)  # every interpolated value is escaped or an int
    return mark_safe(
        '<table class="matrix story-matrix"><caption class="visually-hidden">Verdict of each product on each'
        " user story; each cell links to its proof.</caption>\n"
        f"<thead>{_col_head(matrix, arena, open_disputes)}</thead>\n{bodies}\n</table>"
    )
