"""What scoring reads of an arena, as plain records: for the recompute and the review queue."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from arena.scoring.tally import CellIn, Corrections, StoryIn
from products.models import Product
from stories.models import Cell, CellChange, Story
from stories.values import Backing, CellValue


@dataclass(frozen=True)
class ArenaInputs:
    stories: list[StoryIn]
    cells: list[CellIn]
    products: list[tuple[int, str]]  # (id, name) in column order
    # each cell's id by (story id, product id), as the close calls' settle sets name them
    cell_ids: dict[tuple[int, int | str], int] = field(default_factory=dict)


_JUDGEMENTS = ("verdict", "proof", "quality")


def cell_corrections(
    *, arena_id: int | None = None, cell_ids: Collection[int] | None = None, kept: Collection = ()
) -> dict[int, Corrections]:
    """Each corrected cell's net upheld correction by cell id (no ``kept`` product's cells)."""
    changes = CellChange.objects.filter(kind=CellChange.Kind.FLAG)
    changes = changes.exclude(cell__product_id__in=kept)
    if arena_id is not None:
        changes = changes.filter(cell__story__arena_id=arena_id)
    if cell_ids is not None:
        changes = changes.filter(cell_id__in=cell_ids)
    by_cell: dict[int, list[tuple[CellValue, CellValue]]] = {}
    for cell_id, *values in changes.order_by("changed_at", "pk").values_list(
        "cell_id", *(f"old_{f}" for f in _JUDGEMENTS), *(f"new_{f}" for f in _JUDGEMENTS)
    ):
        by_cell.setdefault(cell_id, []).append((CellValue(*values[:3]), CellValue(*values[3:])))
    return {
        cell_id: net
        for cell_id, changes_of in by_cell.items()
        if (net := Corrections.of(changes_of)) is not None
    }


def arena_scoring_inputs(*, arena_id: int, kept: Collection[int] = ()) -> ArenaInputs:
    """The plain records the scoring module reads (no ``kept`` product's cells): four queries."""
    stories = [
        StoryIn(id=sid, weight=w, category=cat, persona=per)
        for sid, w, cat, per in Story.objects.filter(arena_id=arena_id)
        .order_by("position")
        .values_list("id", "weight", "category__name", "persona__slug")
    ]
    nets = cell_corrections(arena_id=arena_id, kept=kept)
    corrected = {cell_id: net.direction for cell_id, net in nets.items()}
    rows = list(
        Cell.objects.on_pages()
        .filter(story__arena_id=arena_id)
        .exclude(product_id__in=kept)
        .with_backing()
        .order_by()
        .values_list("pk", "story_id", "product_id", "verdict", "proof", "quality", "backing")
    )
    cells = [
        CellIn(sid, pid, v, p, q, corrected.get(pk), published=backing != Backing.NONE)
        for pk, sid, pid, v, p, q, backing in rows
    ]
    products = list(
        Product.objects.filter(arena_id=arena_id).order_by("position").values_list("id", "name")
    )
    cell_ids: dict[tuple[int, int | str], int] = {(sid, pid): pk for pk, sid, pid, *_ in rows}
    return ArenaInputs(stories, cells, products, cell_ids)
