"""Cells as the pages read them: ``CellLine``, the one light stand-in for a cell that the matrix,
the head-to-head and the comparison of several products show, and one cell's proof page (its
evidence, its public record and the head-to-heads it is part of)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import NamedTuple

from django.db.models import Prefetch

from arena import scoring
from arena.models import Source
from arena.selectors.sources import cited_source_map
from products.models import Product
from stories.models import Cell, CellChange, Evidence
from stories.values import Backing, CellValue, backing_of


class Quote(NamedTuple):
    source: str
    quote: str
    url: str = ""
    checked_on: date | None = None


class Quotes(tuple[Quote, ...]):
    """A cell's evidence quotes in page order; ``all()`` as a prefetched ``cell.evidence`` has it."""

    __slots__ = ()

    def all(self) -> Quotes:
        return self


NO_QUOTES = Quotes()


# ``Backing`` by value: a dict lookup, not the enum's call, once per matrix cell
_BACKINGS: dict[str, Backing] = {b.value: b for b in Backing}


@dataclass(slots=True)  # (not frozen: a frozen dataclass costs 3× as much to build, 9,000 times)
class CellLine:
    """What a page shows of a cell: a lighter stand-in for ``stories.Cell`` (the big arena's matrix
    has 9,000 of them) with its product, which is loaded once for the whole read. The matrix reads
    its judgement only; the head-to-head its rationale and evidence (``evidence.all()``) too.
    Read-only by convention."""

    pk: int
    story_id: int
    product: Product
    verdict: str
    proof: str | None
    quality: int | None
    evidence_as_of: date | None = None  # when its evidence was last checked (stories/freshness)
    rationale: str = ""
    detail_published: bool = False
    # how the rationale stands to the last upheld correction (see ``stories.Cell``)
    rationale_predates: datetime | None = None
    rationale_rewritten_at: datetime | None = None
    evidence: Quotes = NO_QUOTES
    # what backs it as the query computed it (``Cell.objects.with_backing``; the matrix reads no
    # detail); None: from the detail read with it
    backing_read: str | None = None

    @property
    def product_id(self) -> int:
        return self.product.pk

    @property
    def backing(self) -> Backing:
        """What backs it (``stories.values.backing_of``)."""
        if self.backing_read is not None:
            return _BACKINGS[self.backing_read]
        quotes = len(self.evidence) if self.detail_published else 0
        return backing_of(published=self.detail_published, rationale=self.rationale, quotes=quotes)

    @property
    def value(self) -> CellValue:
        return CellValue.of(self)


# What a ``CellLine`` is read from (``values_list``), in the order of its fields: its judgement and
# date, then what the head-to-head shows besides (its evidence is read apart: ``QUOTE_FIELDS``).
CELL_LINE_FIELDS = ("id", "story_id", "product_id", "verdict", "proof", "quality", "evidence_as_of")
CELL_DETAIL_FIELDS = (
    "rationale",
    "detail_published",
    "rationale_predates",
    "rationale_rewritten_at",
)
# An evidence quote, by its cell (``Quote`` after the cell's id).
QUOTE_FIELDS = ("cell_id", "source", "quote", "url", "checked_on")


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
    # the arena's source list entries for the ids its published rationale and quotes cite
    sources: dict[str, Source] = field(default_factory=dict)

    @property
    def quote_count(self) -> int:
        return len(self.cell.evidence.all()) if self.cell.detail_published else 0

    @property
    def backing(self) -> Backing:
        """What backs the verdict (``stories.values.backing_of``)."""
        cell = self.cell
        return backing_of(
            published=cell.detail_published, rationale=cell.rationale, quotes=self.quote_count
        )

    @property
    def backing_text(self) -> str:
        return self.backing.describe(self.quote_count)


def cell_in(c: Cell | CellLine) -> scoring.CellIn:
    """A cell as the scoring module's plain record; the pages key products by primary key."""
    return scoring.CellIn.of(c.value, story_id=c.story_id, product=c.product_id)


def winner_of(key: scoring.ProductKey, *products: Product) -> Product | None:
    """The product among ``products`` that a scoring result names (by primary key, as
    ``cell_in`` keys them), or ``None`` for ``scoring.DRAWN``."""
    if key == scoring.DRAWN:
        return None
    return {p.pk: p for p in products}[int(key)]


def cell_page_get(*, pk: int) -> CellPage | None:
    """A cell (retired or not) with its evidence, its verdict history and the head-to-heads its
    story appears in: its product against each other product on the pages where neither cell is
    n/a, and the sources its published detail cites. Five queries (four for an n/a cell); ``None``
    when there is no such cell. Its disputes are the flags app's (``flags.disputes``)."""
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
    # (one query, always; nothing is shown of an unpublished detail)
    texts = [cell.rationale, *(e.source for e in cell.evidence.all())]
    shown = texts if cell.detail_published else []
    sources = cited_source_map(arena_id=cell.story.arena_id, texts=shown)
    return CellPage(cell, changes, links, sources)
