"""The story matrix's cells read from the one row the recompute stores (``StoredMatrix``) rather
than from the cells themselves. The uncached arena page's biggest read is its cells (a row each,
with what backs each worked out by a subquery); stored as one list, checked against the arena's
content version, they are one row and one JSON document.

The row is used only while its version is the arena's ``content_version``: every change to what
the pages show bumps that version in the change's own transaction, and the recompute stores the
row in the transaction that bumps it last, the arena's row locked. A row of an older version
(something changed since the last recompute: a flag filed, a name edited) is not used; the page
reads the cells, as it always could."""

from __future__ import annotations

import functools
from collections.abc import Collection
from datetime import date
from typing import Any

from arena.models import StoredMatrix
from arena.selectors.cells import CELL_LINE_FIELDS
from arena.selectors.compiled import CompiledRead
from stories.models import Cell

# A stored cell: ``CELL_LINE_FIELDS`` (its evidence day as ISO text), then what backs it.
type StoredCell = list[Any]

_STORED = CompiledRead(
    StoredMatrix,
    lambda arena: StoredMatrix.objects.filter(arena=arena).values_list("version", "cells"),
)


def matrix_cell_rows(*, arena_id: int) -> list[StoredCell]:
    """Every cell of the arena's stories (retired or not: the matrix picks its rows and columns),
    as ``StoredMatrix.cells`` stores them, in id order: one query."""
    rows = (
        Cell.objects.filter(story__arena=arena_id)
        .with_backing()
        .order_by("pk")
        .values_list(*CELL_LINE_FIELDS, "backing")
    )
    return [
        [pk, story, product, verdict, proof, quality, day.isoformat() if day else None, backing]
        for pk, story, product, verdict, proof, quality, day, backing in rows
    ]


@functools.lru_cache(maxsize=4096)
def _day(text: str | None) -> date | None:
    return date.fromisoformat(text) if text else None


def stored_matrix_cells(*, arena: Any, products: Collection[int]) -> list[tuple[Any, ...]] | None:
    """The cells of ``products`` (ids) as the matrix's cell query reads them (``CELL_LINE_FIELDS``
    and ``backing``, unordered), from the stored row; None when it cannot stand in for that query:
    ``arena`` (as ``arena_get`` reads it) has changed since the row was stored, or ``products`` is
    not every product on its pages (a column or two of a big arena read fewer cells themselves).
    One query, or none."""
    version = arena.content_version
    if getattr(arena, "matrix_version", None) != version:
        return None
    if len(products) != getattr(arena, "product_count", -1):
        return None
    found = _STORED.rows(arena=arena.pk)
    if not found or found[0][0] != version:  # replaced by a newer one since the arena was read
        return None
    return [
        (pk, story, product, verdict, proof, quality, _day(day), backing)
        for pk, story, product, verdict, proof, quality, day, backing in found[0][1]
        if product in products
    ]
