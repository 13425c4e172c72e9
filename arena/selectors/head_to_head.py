"""A head-to-head: two products story by story, built from their cells (not from stored pages).
Its rounds are the one thing scored on a page read (``arena.scoring.compare``)."""

from __future__ import annotations

from dataclasses import dataclass

from arena import scoring
from arena.models import Arena
from arena.selectors.arenas import arena_stories
from arena.selectors.cells import evidence_prefetch
from arena.selectors.matrix import CategoryBlock, matrix_blocks
from products.models import Product
from stories.models import Cell, Story


@dataclass
class CompareRow:
    story: Story
    round: str  # the winner's product slug, or "drawn"
    cell_a: Cell
    cell_b: Cell
    number: int = 0  # place in its sub-group, from 1, as the published pages number rounds


@dataclass
class Comparison:
    a: Product
    b: Product
    summary: scoring.CompareSummary
    rows: list[CompareRow]  # the rounds: stories where neither cell is n/a, in matrix order
    blocks: list[CategoryBlock]  # the rows under their category and sub-group headings


def _plain(c: Cell) -> scoring.CellIn:
    return scoring.CellIn(c.story_id, c.product_id, c.verdict, c.proof, c.quality)


def head_to_head_get(arena: Arena, a: Product, b: Product) -> Comparison:
    """``a`` vs ``b`` (two products of ``arena``) with each cell's evidence: three queries."""
    stories = list(arena_stories(arena))
    cells = Cell.objects.filter(story__arena=arena, product__in=[a, b]).prefetch_related(
        evidence_prefetch()
    )
    by = {(c.story_id, c.product_id): c for c in cells}
    for c in by.values():  # the two products are loaded already: no query per cell for cell.product
        c.product = a if c.product_id == a.pk else b
    story_in = [scoring.StoryIn(s.pk, s.weight, s.category.name, s.persona.slug) for s in stories]
    cells_a = {sid: _plain(c) for (sid, pid), c in by.items() if pid == a.pk}
    cells_b = {sid: _plain(c) for (sid, pid), c in by.items() if pid == b.pk}
    summary = scoring.compare(story_in, cells_a, cells_b, a.pk, b.pk)
    story_by_id = {s.pk: s for s in stories}
    slug_of = {a.pk: a.slug, b.pk: b.slug, scoring.DRAWN: scoring.DRAWN}
    rows = [
        CompareRow(
            story=story_by_id[r.story_id],
            round=slug_of[r.winner],
            cell_a=by[(r.story_id, a.pk)],
            cell_b=by[(r.story_id, b.pk)],
        )
        for r in summary.rounds
    ]
    blocks = matrix_blocks(rows)
    for block in blocks:
        for group in block.groups:
            for number, row in enumerate(group.rows, start=1):
                row.number = number
    return Comparison(a, b, summary, rows, blocks)
