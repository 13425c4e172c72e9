"""One cell's proof page: its evidence, its public record and the head-to-heads it is part of."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from django.db.models import Prefetch

from arena import scoring
from products.models import Product
from stories.models import Cell, CellChange, Evidence
from stories.values import CellValue


def evidence_prefetch() -> Prefetch:
    """A cell's evidence in page order, for ``prefetch_related``."""
    return Prefetch("evidence", queryset=Evidence.objects.order_by("position"))


@dataclass
class HeadToHeadLink:
    other: Product
    other_cell: Cell
    winner: Product | None  # the round's winner, this cell's product or ``other``; None: drawn


@dataclass
class CellPage:
    cell: Cell
    changes: list[CellChange]  # newest first
    head_to_heads: list[HeadToHeadLink]


class JudgedCell(Protocol):
    """A cell or a lighter stand-in for one (``head_to_head.CompareCell``)."""

    @property
    def value(self) -> CellValue: ...

    @property
    def story_id(self) -> int: ...

    @property
    def product_id(self) -> int: ...


def cell_in(c: JudgedCell) -> scoring.CellIn:
    """A cell as the scoring module's plain record; the pages key products by primary key."""
    return scoring.CellIn.of(c.value, story_id=c.story_id, product=c.product_id)


def winner_of(key: scoring.ProductKey, *products: Product) -> Product | None:
    """The product among ``products`` that a scoring result names (by primary key, as
    ``cell_in`` keys them), or ``None`` for ``scoring.DRAWN``."""
    if key == scoring.DRAWN:
        return None
    return {p.pk: p for p in products}[key]


def cell_page_get(*, pk: int) -> CellPage | None:
    """A cell (retired or not) with its evidence, its verdict history and the head-to-heads its
    story appears in: its product against each other product on the pages where neither cell is
    n/a. Four queries; ``None`` when there is no such cell."""
    cell = (
        Cell.objects.select_related(
            "story__arena", "story__category", "story__subgroup", "story__persona", "product"
        )
        .prefetch_related(evidence_prefetch())
        .filter(pk=pk)
        .first()
    )
    if cell is None:
        return None
    changes = list(CellChange.objects.filter(cell=cell).order_by("-changed_at", "-pk"))
    links = []
    if cell.value.applicable:
        others = (
            Cell.objects.on_pages()
            .filter(story_id=cell.story_id)
            .exclude(pk=cell.pk)
            .select_related("product")
            .order_by("product__position")
        )
        links = [
            HeadToHeadLink(
                other=other.product,
                other_cell=other,
                winner=winner_of(
                    scoring.round_winner(cell_in(cell), cell_in(other)), cell.product, other.product
                ),
            )
            for other in others
            if other.value.applicable
        ]
    return CellPage(cell, changes, links)
