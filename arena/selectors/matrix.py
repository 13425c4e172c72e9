"""The story matrix (the arena page, a product's page, the API) from ``arena_matrix``; every list
of stories under category and sub-group headings from ``matrix_block_list``; a product's page."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from django.db.models import Exists, OuterRef

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
    stories: int = 0  # a collapsed one's count (its rows are not kept)

    @property
    def count(self) -> int:
        return self.stories if self.collapsed else sum(len(g.rows) for g in self.groups)

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
) -> Matrix:
    """The story matrix (a ``stories`` slice of it): over ``collapse_above`` stories, the first
    category's cells only. Kept per
    content version (and day: the stale filter) for values the page links to, not searched text."""
    filters = filters or MatrixFilters()
    products = products if products is not None else arena_product_list(arena=arena)
    if not any(p.slug == filters.sort for p in products):
        filters = replace(filters, sort="")  # a product not shown orders nothing
    fold = tuple(fold)

    def read() -> Matrix:
        return _matrix(arena, filters, products, collapse_above, fold, stories)

    if filters.q or filters.persona or filters.category or fold:
        return read()
    when = (freshness.today(), freshness.stale_days()) if filters.stale else None
    asked = (filters, [p.pk for p in products], collapse_above, when, stories)
    return arena_kept(arena, f"matrix:{hashlib.sha256(repr(asked).encode()).hexdigest()}", read)


def _matrix(
    arena: CountedArena,
    filters: MatrixFilters,
    products: list[Product],
    collapse_above: int | None,
    fold: Iterable[str],
    part: slice | None,
) -> Matrix:
    stories = _filtered_stories(arena, filters, products)[part or slice(None)]
    collapsed: set[int] = set()
    if not filters.category:
        if collapse_above is not None and len(stories) > collapse_above:
            collapsed = {s.category_id for s in stories} - {stories[0].category_id}
        folded = set(fold)
        collapsed |= {s.category_id for s in stories if s.category.slug in folded}
    columns = {p.pk: p for p in products}
    cells = Cell.objects.filter(product_id__in=list(columns))
    if filters.active or collapsed or part:
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
    blocks = matrix_block_list(rows=rows)
    for block in blocks:  # a collapsed one keeps its count, not its stories
        if block.category.pk in collapsed:
            block.collapsed, block.stories, block.groups = True, block.count, []
    return Matrix(products, blocks, arena.story_count, filters)


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


def product_page_get(*, arena: CountedArena, product: Product) -> ProductPage:
    """A product's stored scores and its cells in matrix order: five queries."""
    score = next((s for s in arena_score_list(arena=arena) if s.product_id == product.pk), None)
    matrix = arena_matrix(arena=arena, products=[product])
    cat_scores = score.category_scores if score else {}
    per_scores = score.persona_scores if score else {}
    today, days = freshness.today(), freshness.stale_days()
    cells = [c for row in matrix.rows for c in row.cells if c.verdict != Verdict.NA]
    stale = sum(
        freshness.is_stale(c.verdict, c.evidence_as_of, today=today, days=days) for c in cells
    )
    return ProductPage(
        product=product,
        score=score,
        categories=[(c, cat_scores.get(c.name)) for c in arena_category_list(arena=arena)],
        personas=[
            (r, per_scores.get(r.persona.slug)) for r in arena_persona_result_list(arena=arena)
        ],
        blocks=matrix.blocks,
        stale=StaleShare(stale=stale, cells=len(cells), days=days),
    )
