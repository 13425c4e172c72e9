"""The story matrix and the product page's column of it: its rows of cells written in Python, as
template loops are many times slower on the big arena's 300 rows of 30 cells (docs/architecture.md)."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from arena.models import SubGroup
from arena.selectors.cells import CellLine
from arena.selectors.matrix import CategoryBlock, Matrix, MatrixRow
from stories import freshness
from stories.values import Backing, Verdict
from web import params
from web.pages import links
from web.pages.cells import (
    esc,
    freshness_now,
    matrix_badge,
    persona_name,
    stale_title,
    story_name,
    verdict_class,
)

# What backs each cell, a mark after its badge (the legend and the link's accessible name say it).
BACKING_MARKS = {Backing.QUOTES: " ❝", Backing.RATIONALE: " ¶", Backing.NONE: " ∅"}
PHONE_STORIES = 2  # a phone shows this many stories per category, then a link: a short scroll


@functools.lru_cache(maxsize=1024)
def _cell_parts(
    verdict: str, proof: str | None, quality: int | None, backing: str | None
) -> tuple[str, str, str]:
    """A cell's ``<td`` up to its product's name, its badge and backing mark, its judgement in
    words (``, full, probed, 9/10, a quote``): the same few dozen strings for a whole table."""
    backed_by = Backing(backing) if backing is not None else None
    mark = BACKING_MARKS[backed_by] if backed_by is not None else ""
    backed = f", {esc(backed_by.label)}" if backed_by is not None else ""
    # the judgement for screen readers: ``full, probed, 9/10``, ``not applicable``
    words = ", ".join(part for part in (verdict, proof, f"{quality}/10") if part)
    return (
        f'<td class="{verdict_class(verdict)}" data-p="',
        f"{matrix_badge(verdict, proof, quality)}{mark}",
        f", {'not applicable' if verdict == Verdict.NA else words}{backed}",
    )


# Where a table's cells link, today and the stale cut-off (``freshness.stale_before``), per table.
type CellsAt = tuple[str, date, date]


def cells_at() -> CellsAt:
    today, days = freshness_now()
    return links.cells_prefix(), today, freshness.stale_before(today=today, days=days)


def cells_html(
    cells: Iterable[CellLine],
    flag_controls: bool,
    labels: dict[int, str],
    story: str = "",
    at: CellsAt | None = None,
) -> str:
    """Each cell's ``<td>`` (``data-p``: its product's name) linking to its proof page, with a stale
    mark and, with ``flag_controls``, a flag control. ``labels``: escaped names, filled as met."""
    prefix, today, cutoff = at or cells_at()
    on = f" on &ldquo;{story}&rdquo;" if story else ""
    out = []
    for c in cells:
        pk, product, as_of = int(c.pk), c.product, c.evidence_as_of
        label = labels.get(id(product))  # (the table's cells share each product's instance)
        if label is None:
            label = labels[id(product)] = esc(product.name)
        backing = getattr(c, "backing", None)  # as its read computed it (a stand-in may not)
        td, badge, words = _cell_parts(c.verdict, c.proof, c.quality, backing)
        # (``freshness.is_stale`` with its cut-off date worked out once for the whole table)
        stale = c.verdict != Verdict.NA and (as_of is None or as_of < cutoff)
        if stale:
            badge += f' <small class="stale-mark" title="{stale_title(as_of, today)}">stale</small>'
            words += ", stale evidence"
        flag = (
            f'<a class="flag-mini" href="{prefix}{pk}/flag/" aria-label="Flag {label}{on}">⚑</a>'
            if flag_controls
            else ""
        )
        out.append(
            f'{td}{label}"><a href="{prefix}{pk}/">{badge}'
            f'<span class="visually-hidden">: {label}{words}</span></a>{flag}</td>'
        )
    return "".join(out)


@dataclass(frozen=True)
class MatrixGroup:
    """A sub-group's rows; ``shown``: the category's stories before it."""

    subgroup: SubGroup | None
    rows: Sequence[MatrixRow]
    shown: int
    fold: bool

    @property
    def hidden(self) -> bool:  # whether a phone leaves out its heading
        return self.fold and self.shown >= PHONE_STORIES


@dataclass(frozen=True)
class MatrixBlock:
    """One category's ``<tbody>``: its heading's links (``matrix_category_urls``) and groups."""

    block: CategoryBlock
    fold_url: str
    load_url: str  # what htmx loads, and the page with the category alone
    href: str  # a collapsed one's link without JavaScript
    more: bool
    groups: list[MatrixGroup]


def matrix_blocks(
    matrix: Matrix, arena: str, query: Mapping[str, str] | None = None
) -> list[MatrixBlock]:
    """A ``<tbody>`` per category; ``query``: what its links carry besides the category."""
    out = []
    for block in matrix.blocks:
        groups, shown = [], 0
        more = not matrix.filters.category and block.count > PHONE_STORIES and not block.collapsed
        for group in [] if block.collapsed else block.groups:
            groups.append(MatrixGroup(group.subgroup, group.rows, shown, more))
            shown += len(group.rows)
        fold, rows, opened = links.matrix_category_urls(arena, query or {}, block.slug)
        out.append(MatrixBlock(block, fold, rows, opened, more, groups))
    return out


def matrix_bodies(matrix: Matrix, arena: str, query: Mapping[str, str] | None = None) -> SafeString:
    """A ``<tbody>`` per category: heading, count, fold or load link, sub-groups' headings and rows."""
    ncols = len(matrix.products) + 1
    stories = links.url_prefix("story-detail", arena)
    labels: dict[int, str] = {}
    at = cells_at()
    out = []
    for b in matrix_blocks(matrix, arena, query):
        category = b.block.category
        pk, name, blurb = int(category.pk), esc(category.name), esc(category.blurb or "")
        body = f"{params.CATEGORY_TARGET}{pk}"
        count = f"{b.block.count} {'story' if b.block.count == 1 else 'stories'}"
        blurb = f' <span class="blurb">{blurb}</span>' if blurb else ""
        head = (
            f'<tbody id="{body}"{' class="collapsed"' if b.block.collapsed else ""}>'
            f'<tr class="cat-row"><th colspan="{ncols}" scope="colgroup" id="cat-{pk}">'
            f'<div class="sticky-left"><span class="row-heading" role="heading" aria-level="3">'
            f"{name}</span>"
        )
        if b.block.collapsed:
            head += (
                f'{blurb} <a class="cat-load" href="{esc(b.href)}#matrix-section"'
                f' hx-get="{esc(b.load_url)}" hx-target="#{body}" hx-swap="outerHTML">'
                f'Show {count}<span class="visually-hidden"> of {name}</span></a>'
            )
        else:
            fold = esc(b.fold_url)
            head += (
                f' <span class="cat-count">{count}</span> <a class="cat-fold"'
                f' href="{fold}#matrix-section" hx-get="{fold}" hx-target="#{body}"'
                f' hx-select="#{body}" hx-swap="outerHTML">'
                f'Hide<span class="visually-hidden"> {name}</span></a>{blurb}'
            )
        parts = [head + "</div></th></tr>\n"]
        for group in b.groups:
            if group.subgroup:
                more = " mx-more" if group.hidden else ""
                parts.append(
                    f'<tr class="sub-row{more}"><th colspan="{ncols}" scope="colgroup">'
                    f'<div class="sticky-left"><span class="row-heading" role="heading"'
                    f' aria-level="4">{esc(group.subgroup.name)}</span></div></th></tr>\n'
                )
            parts.append(_story_rows(group, stories, labels, at) + "\n")
        if b.block.pages > 1:  # (a phone shows the first stories and "All …" instead)
            parts.append(_pager(b, ncols, body) + "\n")
        if b.more:
            parts.append(
                f'<tr class="mx-more-link"><td colspan="{ncols}"><a href="{esc(b.load_url)}'
                f'#matrix-section">All {count} of {name}</a></td></tr>\n'
            )
        out.append("".join(parts) + "</tbody>")
    return mark_safe("\n".join(out))  # every interpolated value is escaped or an int


def _pager(b: MatrixBlock, ncols: int, body: str) -> str:
    anchor = f"cat-{int(b.block.category.pk)}"
    ctx = {"block": b.block, "ncols": ncols, "body": body, "base": b.load_url, "anchor": anchor}
    return render_to_string("arena/_pager.html", {**ctx, "more": b.more})


def _story_rows(group: MatrixGroup, stories: str, labels: dict[int, str], at: CellsAt) -> str:
    """A sub-group's rows: each story with its persona's name and its cells."""
    out = []
    for i, row in enumerate(group.rows):
        story = row.story
        more = ' class="mx-more"' if group.fold and group.shown + i >= PHONE_STORIES else ""
        out.append(
            f'<tr{more}><th scope="row" class="story-col"><a href="{stories}{int(story.pk)}/">'
            f'{esc(story.text)}</a> <span class="persona-inline">{esc(persona_name(story.persona))}</span></th>'
            f"{cells_html(row.cells, True, labels, esc(story_name(story.text)), at)}</tr>"
        )
    return "\n".join(out)


def product_rows(rows: Iterable[MatrixRow], arena: str) -> SafeString:
    """The product page's verdict table: each story, its persona, its cell and flag control."""
    stories = links.url_prefix("story-detail", arena)
    labels: dict[int, str] = {}
    at = cells_at()
    out = []
    for row in rows:
        story = row.story
        persona = esc(persona_name(story.persona))
        controls = "".join(
            f'<div id="cell-{int(c.pk)}"><a class="flag-control" href="{at[0]}{int(c.pk)}/flag/"'
            f' aria-label="Flag this verdict: {esc(c.product.name)} on “{esc(story_name(story.text))}”,'
            f' {esc(c.verdict)}">⚑ flag</a></div>'
            for c in row.cells
        )
        out.append(
            f'<tr><th scope="row" class="story-col"><a href="{stories}{int(story.pk)}/">'
            f'{esc(story.text)}</a><span class="persona-inline">{persona}</span></th>'
            f'<td class="persona">{persona}</td>{cells_html(row.cells, False, labels, at=at)}'
            f'<td class="actions">{controls}</td></tr>'
        )
    return mark_safe("\n".join(out))  # every interpolated value is escaped or an int
