"""The story matrix (the arena page, a product's page, the API) from ``arena_matrix``; every list
of stories under category and sub-group headings from ``matrix_block_list``; a product's page."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from django.db.models import Count, Exists, OuterRef

from arena.models import Arena, Category, PersonaResult, ProductScore, SubGroup
from arena.scoring.tally import ProductKey, round_half_up, verdict_strength
from arena.selectors.arenas import (
    CountedArena,
    arena_category_list,
    arena_kept,
    arena_persona_result_list,
    arena_product_list,
    arena_story_list,
)
from arena.selectors.cells import CELL_LINE_FIELDS, CellLine
from arena.selectors.leaderboard import arena_score_list
from products.models import Product
from stories import freshness
from stories.models import Cell, Story
from stories.values import Verdict

MATRIX_COLUMNS = 8  # every product up to this many, else the ranking's top ones
MATRIX_COLLAPSE_ABOVE = 60  # more stories: the first category's rows only, the rest on demand
# An open category's stories per page (``?category=…&page=N`` has the rest): a page stays small
# whatever the arena's size; the product page's rows are a quarter of the matrix's.
MATRIX_ROWS = 100
PRODUCT_ROWS = 400


@dataclass
class MatrixRow:
    story: Story
    cells: list[CellLine]  # in column order; a product without a cell here has no entry

    @property
    def by_product(self) -> dict[Product, CellLine]:
        return {c.product: c for c in self.cells}


@dataclass
class SubGroupBlock:
    subgroup: SubGroup | None
    rows: list[Any] = field(default_factory=list)  # rows with a ``story``, in matrix order


@dataclass
class CategoryBlock:
    category: Any  # a ``Category``
    groups: list[SubGroupBlock] = field(default_factory=list)
    collapsed: bool = False  # its rows are loaded on demand (the heading and count shown)
    stories: int = 0  # its count when not all its rows are kept (collapsed, or a page of them)
    first: int = 0  # the index of its first row kept (on a page after the first)
    page_rows: int = 0  # a paged one's stories a page

    @property
    def kept(self) -> int:
        return sum(len(g.rows) for g in self.groups)

    @property
    def count(self) -> int:
        return self.stories or self.kept

    @property
    def page(self) -> int:
        return self.first // self.page_rows + 1 if self.page_rows else 1

    @property
    def pages(self) -> int:
        return -(-self.count // self.page_rows) if self.page_rows and not self.collapsed else 1

    @property
    def slug(self) -> str:
        return self.category.slug


def matrix_block_list(*, rows: Iterable[Any]) -> list[CategoryBlock]:
    """Rows (each with a ``story``) under their category and sub-group headings, as published."""
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


def matrix_column_list(
    *, products: Sequence[Product], ranking: Sequence[ProductKey], show: Iterable[str] = ()
) -> list[Product]:
    """The columns in ``ranking``'s order: those ``show`` names, else the first few."""
    position = {pk: i for i, pk in enumerate(ranking)}
    ranked = sorted(products, key=lambda p: position.get(p.pk, len(position)))
    picked = set(show)
    return [p for p in ranked if p.slug in picked] or ranked[:MATRIX_COLUMNS]


@dataclass(frozen=True)
class MatrixFilters:
    persona: str = ""
    category: str = ""  # a category's slug
    verdict: str = ""  # stories where at least one product has this verdict
    q: str = ""  # in the story text, any case
    sort: str = ""  # a product's slug: its verdicts order the stories of each sub-group
    stale: str = ""  # "1": stories where a product shown has a stale cell

    @property
    def active(self) -> bool:
        """Whether some stories may be left out (``sort`` leaves all in)."""
        return bool(self.persona or self.category or self.verdict or self.q or self.stale)

    def as_params(self) -> dict[str, str]:
        return {k: v for k, v in vars(self).items() if v}


@dataclass
class Matrix:
    products: list[Product]  # the columns
    blocks: list[CategoryBlock]  # the stories shown under their headings, in matrix order
    total: int  # stories in the arena
    filters: MatrixFilters

    @property
    def rows(self) -> list[MatrixRow]:
        """The rows read, in matrix order (none of a collapsed block)."""
        return [row for b in self.blocks for g in b.groups for row in g.rows]

    @property
    def shown(self) -> int:
        return sum(b.count for b in self.blocks)

    @property
    def collapsed(self) -> set[int]:
        """The categories whose rows are not loaded."""
        return {b.category.pk for b in self.blocks if b.collapsed}


def _filtered_stories(
    arena: CountedArena, filters: MatrixFilters, products: list[Product]
) -> list[Story]:
    stories = arena_story_list(arena=arena)
    cells = Cell.objects.filter(story=OuterRef("pk")).order_by()
    if filters.persona:
        stories = stories.filter(persona__slug=filters.persona)
    if filters.verdict:
        stories = stories.filter(Exists(cells.on_pages().filter(verdict=filters.verdict)))
    if filters.q:
        stories = stories.filter(text__icontains=filters.q)
    if filters.stale:
        rule = freshness.stale_q(today=freshness.today(), days=freshness.stale_days())
        stories = stories.filter(
            Exists(cells.filter(rule, product_id__in=[p.pk for p in products]))
        )
    # (a category by its slug, which is its name's: picked here rather than in the database)
    picked = [s for s in stories if not filters.category or s.category.slug == filters.category]
    shared: dict[tuple[str, int], Any] = {}
    for story in picked:  # one object per category, sub-group and persona: the matrix is pickled
        for name in ("category", "subgroup", "persona"):
            if (related := getattr(story, name)) is not None:
                setattr(story, name, shared.setdefault((name, related.pk), related))
    return picked


def arena_matrix(
    *,
    arena: CountedArena,
    filters: MatrixFilters | None = None,
    products: list[Product] | None = None,
    collapse_above: int | None = None,
    fold: Iterable[str] = (),
    stories: slice | None = None,
    page_rows: int | None = None,
    page: int = 1,
    opened: str = "",
) -> Matrix:
    """The story matrix: over ``collapse_above`` stories one category's cells (``opened``, else the
    first), ``page_rows`` a ``page``. Kept per content version (and day) unless searched."""
    filters = filters or MatrixFilters()
    products = products if products is not None else arena_product_list(arena=arena)
    if not any(p.slug == filters.sort for p in products):
        filters = replace(filters, sort="")  # a product not shown orders nothing
    fold = tuple(fold)

    shape = _Shape(collapse_above, tuple(fold), stories, page_rows, page, opened)

    def read() -> Matrix:
        return _matrix(arena, filters, products, shape)

    if filters.q or filters.persona or filters.category or fold or opened or page > 1:
        return read()
    when = (freshness.today(), freshness.stale_days()) if filters.stale else None
    asked = (filters, [p.pk for p in products], collapse_above, when, stories, page_rows)
    return arena_kept(arena, f"matrix:{hashlib.sha256(repr(asked).encode()).hexdigest()}", read)


@dataclass(frozen=True)
class _Shape:
    """What of the matrix is read besides its filters (``arena_matrix``'s arguments)."""

    collapse_above: int | None
    fold: tuple[str, ...]
    part: slice | None
    page_rows: int | None
    page: int
    opened: str


def _matrix(
    arena: CountedArena, filters: MatrixFilters, products: list[Product], shape: _Shape
) -> Matrix:
    stories = _filtered_stories(arena, filters, products)[shape.part or slice(None)]
    collapsed: set[int] = set()
    if not filters.category and stories:
        if shape.collapse_above is not None and len(stories) > shape.collapse_above:
            opened = [s.category_id for s in stories if s.category.slug == shape.opened]
            collapsed = {s.category_id for s in stories} - {(opened or [stories[0].category_id])[0]}
        folded = set(shape.fold)
        collapsed |= {s.category_id for s in stories if s.category.slug in folded}
    columns = {p.pk: p for p in products}
    cells = Cell.objects.filter(product_id__in=list(columns))
    if filters.active or collapsed or shape.part:
        cells = cells.filter(story_id__in=[s.pk for s in stories if s.category_id not in collapsed])
    else:
        cells = cells.filter(story__arena=arena)
    by = {
        (sid, pid): CellLine(pk, sid, columns[pid], verdict, proof, quality, as_of, b)
        for pk, sid, pid, verdict, proof, quality, as_of, b in (
            cells.with_backing().order_by().values_list(*CELL_LINE_FIELDS, "backing")
            if columns and stories
            else []
        )
    }
    pks = list(columns)
    rows = [MatrixRow(s, [by[key] for pid in pks if (key := (s.pk, pid)) in by]) for s in stories]
    sort = next((p for p in products if p.slug == filters.sort), None)
    if sort is not None:
        groups: dict[tuple, int] = {}

        def strength(row: MatrixRow) -> tuple:
            """Each sub-group's stories by ``sort``'s verdicts, strongest first (a stable sort)."""
            group = groups.setdefault((row.story.category_id, row.story.subgroup_id), len(groups))
            cell = row.by_product.get(sort)
            verdict, quality = (cell.verdict, cell.quality) if cell else (None, None)
            strong = verdict_strength(verdict, quality)
            return (group, -strong[0], -strong[1])

        rows.sort(key=strength)
    firsts, kept = _pages(rows, collapsed, shape.page_rows, shape.page)
    blocks = matrix_block_list(rows=rows)
    for block in blocks:  # a collapsed one keeps its count, not its stories; a paged one a page
        pk = block.category.pk
        if pk in collapsed:
            block.collapsed, block.stories, block.groups = True, block.count, []
        elif pk in firsts:
            block.stories, block.first = block.count, firsts[pk]
            block.page_rows = shape.page_rows or 0
            for group in block.groups:
                group.rows = [r for r in group.rows if r.story.pk in kept]
            block.groups = [g for g in block.groups if g.rows]
    return Matrix(products, blocks, arena.story_count, filters)


def _pages(
    rows: list[MatrixRow], collapsed: set[int], page_rows: int | None, page: int
) -> tuple[dict[int, int], set[int]]:
    """Each long open category's first row on ``page`` (the last past it); the stories kept."""
    by: dict[int, list[int]] = {}
    for row in rows:
        by.setdefault(row.story.category_id, []).append(row.story.pk)
    firsts, kept = {}, set()
    for pk, some in by.items():
        if page_rows and pk not in collapsed and len(some) > page_rows:
            last = (len(some) - 1) // page_rows + 1
            firsts[pk] = start = (min(page, last) - 1) * page_rows
            kept.update(some[start : start + page_rows])
    return firsts, kept


@dataclass(frozen=True)
class StaleShare:
    """A product's judged cells (an n/a cell is never stale) and how many are stale."""

    stale: int
    cells: int
    days: int  # stale after this many days

    @property
    def percent(self) -> int:
        return round_half_up(100 * self.stale / self.cells) if self.cells else 0


@dataclass
class ProductPage:
    product: Product
    score: ProductScore | None
    categories: list[tuple[Category, int | None]]  # each category with the product's score
    personas: list[tuple[PersonaResult, int | None]]  # each persona's result with its score
    blocks: list[CategoryBlock]  # the matrix with this product's column only
    stale: StaleShare


def product_get(
    *, arena: Arena, slug: str, products: list[Product] | None = None
) -> Product | None:
    """A product of ``arena`` on the pages, or ``None``."""
    products = arena_product_list(arena=arena) if products is None else products
    return next((p for p in products if p.slug == slug), None)


def product_page_get(
    *, arena: CountedArena, product: Product, category: str = "", page: int = 1
) -> ProductPage:
    """A product's stored scores and cells in matrix order, a category a page at a time: 6 queries."""
    score = next((s for s in arena_score_list(arena=arena) if s.product_id == product.pk), None)
    matrix = arena_matrix(
        arena=arena,
        products=[product],
        collapse_above=PRODUCT_ROWS,
        page_rows=PRODUCT_ROWS,
        page=page,
        opened=category,
    )
    cat_scores = score.category_scores if score else {}
    per_scores = score.persona_scores if score else {}
    today, days = freshness.today(), freshness.stale_days()
    judged = Cell.objects.on_pages().filter(product=product).exclude(verdict=Verdict.NA)
    counted = judged.aggregate(
        cells=Count("pk"), stale=Count("pk", filter=freshness.stale_q(today=today, days=days))
    )
    return ProductPage(
        product=product,
        score=score,
        categories=[(c, cat_scores.get(c.name)) for c in arena_category_list(arena=arena)],
        personas=[
            (r, per_scores.get(r.persona.slug)) for r in arena_persona_result_list(arena=arena)
        ],
        blocks=matrix.blocks,
        stale=StaleShare(stale=counted["stale"], cells=counted["cells"], days=days),
    )
