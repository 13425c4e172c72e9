"""The story matrix: every page that shows stories by product (the arena page, a product's page,
the API's matrix) reads it from ``arena_matrix``, and every page that lists stories under their
category and sub-group headings (those and the head-to-head) groups them with ``matrix_block_list``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

from django.db.models import Exists, OuterRef

from arena.models import Arena, Category
from arena.selectors.arenas import arena_category_list, arena_product_list, arena_story_list
from products.models import Product
from stories.models import Cell, Story
from stories.values import CellValue, Verdict


@dataclass(frozen=True, slots=True)
class MatrixCell:
    """What a matrix cell shows: a lighter stand-in for ``stories.Cell`` (the big arena's matrix
    has 9,000 of them), with its product, which is loaded once for the whole matrix."""

    pk: int
    story_id: int
    product: Product
    verdict: str
    proof: str | None
    quality: int | None

    @property
    def product_id(self) -> int:
        return self.product.pk

    @property
    def value(self) -> CellValue:
        return CellValue(self.verdict, self.proof, self.quality)


@dataclass
class MatrixRow:
    story: Story
    cells: list[MatrixCell]  # in column order; a product without a cell here has no entry

    @property
    def by_product(self) -> dict[Product, MatrixCell]:
        return {c.product: c for c in self.cells}


class StoryRow(Protocol):
    story: Story


@dataclass
class SubGroupBlock:
    subgroup: object | None
    rows: list[Any] = field(default_factory=list)  # rows with a ``story``, in matrix order


@dataclass
class CategoryBlock:
    category: Category
    groups: list[SubGroupBlock] = field(default_factory=list)


def matrix_block_list(*, rows: Iterable[StoryRow]) -> list[CategoryBlock]:
    """Rows under their category heading, split into sub-groups: consecutive rows of one category
    and sub-group form one table, as on the published pages."""
    blocks: list[CategoryBlock] = []
    for row in rows:
        story = row.story
        if not blocks or blocks[-1].category.pk != story.category_id:
            blocks.append(CategoryBlock(story.category))
        groups = blocks[-1].groups
        if not groups or getattr(groups[-1].subgroup, "pk", None) != story.subgroup_id:
            groups.append(SubGroupBlock(story.subgroup))
        groups[-1].rows.append(row)
    return blocks


@dataclass(frozen=True)
class MatrixFilters:
    persona: str = ""
    category: str = ""  # a category's slug
    verdict: str = ""  # stories where at least one product has this verdict
    q: str = ""  # in the story text, any case

    @classmethod
    def from_params(cls, params: Mapping[str, str]) -> MatrixFilters:
        """Filters from query values the view has read and cleaned: spaces around them dropped,
        an unknown verdict ignored."""
        verdict = params.get("verdict", "").strip()
        return cls(
            persona=params.get("persona", "").strip(),
            category=params.get("category", "").strip(),
            verdict=verdict if verdict in Verdict.values else "",
            q=params.get("q", "").strip(),
        )

    @property
    def active(self) -> bool:
        return bool(self.persona or self.category or self.verdict or self.q)

    def as_params(self) -> dict[str, str]:
        return {k: v for k, v in vars(self).items() if v}


@dataclass
class Matrix:
    products: list[Product]  # the columns
    rows: list[MatrixRow]  # the stories shown, in matrix order
    total: int  # stories in the arena
    filters: MatrixFilters

    @property
    def shown(self) -> int:
        return len(self.rows)

    @cached_property
    def blocks(self) -> list[CategoryBlock]:
        return matrix_block_list(rows=self.rows)


def arena_matrix(
    *,
    arena: Arena,
    filters: MatrixFilters | None = None,
    products: list[Product] | None = None,
    categories: list[Category] | None = None,
) -> Matrix:
    """The story matrix of ``arena`` (as ``arena_get`` returns it), filtered in the database, with
    ``products`` as its columns (default: every product on the pages): two queries with
    ``products`` given, plus one for the categories when filtering by one without ``categories``
    given; none per row. Cells are plain tuples, not model instances."""
    filters = filters or MatrixFilters()
    products = products if products is not None else arena_product_list(arena=arena)
    stories = arena_story_list(arena=arena)
    if filters.persona:
        stories = stories.filter(persona__slug=filters.persona)
    if filters.category:
        categories = categories if categories is not None else arena_category_list(arena=arena)
        match = [c.pk for c in categories if c.slug == filters.category]
        stories = stories.filter(category_id__in=match)
    if filters.verdict:
        stories = stories.filter(
            Exists(Cell.objects.on_pages().filter(story=OuterRef("pk"), verdict=filters.verdict))
        )
    if filters.q:
        stories = stories.filter(text__icontains=filters.q)
    story_list = list(stories)
    columns = {p.pk: p for p in products}
    cells = Cell.objects.filter(product_id__in=list(columns))
    if filters.active:
        cells = (
            cells.filter(story_id__in=[s.pk for s in story_list]) if story_list else cells.none()
        )
    else:
        cells = cells.filter(story__arena=arena)
    by = {
        (sid, pid): MatrixCell(pk, sid, columns[pid], verdict, proof, quality)
        for pk, sid, pid, verdict, proof, quality in cells.values_list(
            "id", "story_id", "product_id", "verdict", "proof", "quality"
        )
    }
    rows = [
        MatrixRow(s, [by[(s.pk, p.pk)] for p in products if (s.pk, p.pk) in by]) for s in story_list
    ]
    return Matrix(products=products, rows=rows, total=arena.story_count, filters=filters)
