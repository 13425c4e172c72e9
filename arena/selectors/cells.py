"""Cells as the pages read them: ``CellLine``, the light stand-in the matrix and the comparison
show; a story's cells; one cell's proof page; the sources their evidence cites."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from django.db.models import Prefetch

from arena.models import Arena, Source
from arena.scoring.rounds import DRAWN, round_winner
from arena.scoring.tally import CellIn
from core.text import source_ids
from products.models import Product
from stories.models import Cell, CellChange, Evidence, Story
from stories.values import CellValue


@dataclass(slots=True)  # (not frozen: slower to build, and the matrix builds one per cell)
class CellLine:
    """What a page shows of a cell: a light stand-in for ``stories.Cell`` with its product."""

    pk: int
    story_id: int
    product: Product
    verdict: str
    proof: str | None
    quality: int | None
    evidence_as_of: date | None
    backing: str  # ``Cell.objects.with_backing()``'s, as a Cell read so has it

    @property
    def product_id(self) -> int:
        return self.product.pk

    @property
    def value(self) -> CellValue:
        return CellValue.of(self)


# What a ``CellLine`` is read from (``values_list``), in the order of its fields
CELL_LINE_FIELDS = ("id", "story_id", "product_id", "verdict", "proof", "quality", "evidence_as_of")


def cell_in(c: Cell | CellLine) -> CellIn:
    """A cell as the scoring module's record, its product keyed by primary key."""
    return CellIn.of(c.value, story_id=c.story_id, product=c.product_id)


def cited_sources(*, arena_id: int, cells: Iterable[Cell]) -> dict[str, Source]:
    """The source list entries the cells' published detail cites, by id: always one query."""
    texts = [
        text
        for c in cells
        if c.detail_published
        for text in (c.rationale, *(e.source for e in c.evidence.all()))
    ]
    keys = sorted({key for text in texts for key in source_ids(text)})
    found = Source.objects.filter(arena_id=arena_id, key__in=keys or [""])  # (no id is empty)
    return {s.key: s for s in found}


def with_evidence() -> Prefetch:
    return Prefetch("evidence", queryset=Evidence.objects.order_by("position"))


def story_get(*, arena: Arena, pk: int) -> Story | None:
    """A story of ``arena`` on the pages, or ``None``."""
    stories = Story.objects.select_related("category", "subgroup", "persona")
    return stories.filter(arena=arena, pk=pk).first()


def story_cell_list(*, story: Story) -> list[Cell]:
    """Every product's cell for one story in column order, with evidence: two queries."""
    return list(
        Cell.objects.on_pages()
        .with_backing()
        .filter(story=story)
        .select_related("product")
        .prefetch_related(with_evidence())
        .order_by("product__position")
    )


@dataclass
class CellPage:
    cell: Cell
    changes: list[CellChange]  # newest first
    head_to_heads: list[tuple[Cell, Product | None]]  # each other's cell, the round's winner
    sources: dict[str, Source]  # what its published detail cites


def cell_page_get(*, pk: int) -> CellPage | None:
    """A cell (retired or not) with its evidence, history, head-to-heads and cited sources."""
    cell = (
        Cell.objects.with_backing()
        .select_related(
            "story__arena", "story__category", "story__subgroup", "story__persona", "product"
        )
        .prefetch_related(with_evidence())
        .filter(pk=pk)
        .first()
    )
    if cell is None:
        return None
    changes = list(CellChange.objects.filter(cell=cell).order_by("-changed_at", "-pk"))
    links = []
    others = Cell.objects.on_pages().filter(story_id=cell.story_id).exclude(pk=cell.pk)
    shown = others.select_related("product").order_by("product__position")
    for other in shown if cell.value.applicable else ():
        if other.value.applicable:
            won = round_winner(cell_in(cell), cell_in(other))
            winner = {DRAWN: None, cell.product_id: cell.product}.get(won, other.product)
            links.append((other, winner))
    return CellPage(cell, changes, links, cited_sources(arena_id=cell.story.arena_id, cells=[cell]))
