"""A head-to-head: two products story by story, built from their cells (not from stored pages).
Its rounds are the one thing scored on a page read (``arena.scoring.compare``)."""

from __future__ import annotations

from dataclasses import dataclass

from arena import scoring
from arena.models import Arena
from arena.selectors.arenas import arena_story_list
from arena.selectors.cells import cell_in, evidence_prefetch, winner_of
from arena.selectors.matrix import CategoryBlock, matrix_block_list
from products.models import Product
from stories.models import Cell, Story


@dataclass
class CompareRow:
    story: Story
    winner: Product | None  # the round's winner; None: drawn
    cell_a: Cell
    cell_b: Cell
    number: int = 0  # place in its sub-group, from 1, as the published pages number rounds

    @property
    def cells(self) -> dict[Product, Cell]:
        """The two cells by their product, ``a``'s first."""
        return {self.cell_a.product: self.cell_a, self.cell_b.product: self.cell_b}


@dataclass
class Comparison:
    a: Product
    b: Product
    summary: scoring.CompareSummary
    leader: Product | None  # ahead on the weighted tally, then on rounds won; None: level
    rows: list[CompareRow]  # the rounds: stories where neither cell is n/a, in matrix order
    blocks: list[CategoryBlock]  # the rows under their category and sub-group headings

    @property
    def products(self) -> tuple[Product, Product]:
        return (self.a, self.b)

    @property
    def round_count(self) -> int:
        return len(self.rows)

    @property
    def won(self) -> dict[Product, int]:
        return {self.a: self.summary.won_a, self.b: self.summary.won_b}

    @property
    def weighted(self) -> dict[Product, int]:
        return {self.a: self.summary.weighted_a, self.b: self.summary.weighted_b}


def head_to_head_get(*, arena: Arena, a: Product, b: Product) -> Comparison:
    """``a`` vs ``b`` (two products of ``arena``) with each cell's evidence: three queries."""
    stories = list(arena_story_list(arena=arena))
    cells = Cell.objects.filter(story__arena=arena, product__in=[a, b]).prefetch_related(
        evidence_prefetch()
    )
    by = {(c.story_id, c.product_id): c for c in cells}
    for c in by.values():  # the two products are loaded already: no query per cell for cell.product
        c.product = a if c.product_id == a.pk else b
    story_in = [scoring.StoryIn(s.pk, s.weight, s.category.name, s.persona.slug) for s in stories]
    cells_a = {sid: cell_in(c) for (sid, pid), c in by.items() if pid == a.pk}
    cells_b = {sid: cell_in(c) for (sid, pid), c in by.items() if pid == b.pk}
    summary = scoring.compare(story_in, cells_a, cells_b, a.pk, b.pk)
    story_by_id = {s.pk: s for s in stories}
    rows = [
        CompareRow(
            story=story_by_id[r.story_id],
            winner=winner_of(r.winner, a, b),
            cell_a=by[(r.story_id, a.pk)],
            cell_b=by[(r.story_id, b.pk)],
        )
        for r in summary.rounds
    ]
    blocks = matrix_block_list(rows=rows)
    for block in blocks:
        for group in block.groups:
            for number, row in enumerate(group.rows, start=1):
                row.number = number
    return Comparison(a, b, summary, winner_of(summary.leader, a, b), rows, blocks)
