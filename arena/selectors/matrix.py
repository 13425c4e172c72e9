"""The story matrix: every page that shows stories by product (the arena page, a product's page,
the API's matrix) reads it from ``arena_matrix``, and every page that lists stories under their
category and sub-group headings (those and the head-to-head) groups them with ``matrix_block_list``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from django.db.models import Exists, OuterRef

from arena import scoring
from arena.models import Arena
from arena.selectors.arenas import CountedArena, arena_product_list, arena_story_list
from arena.selectors.cells import CELL_LINE_FIELDS, CellLine
from products.models import Product
from stories import freshness
from stories.models import Cell, Story
from stories.values import Verdict


@dataclass
class MatrixRow:
    story: Story
    cells: list[CellLine]  # in column order; a product without a cell here has no entry

    @property
    def by_product(self) -> dict[Product, CellLine]:
        return {c.product: c for c in self.cells}


@dataclass
class SubGroupBlock:
    subgroup: object | None
    rows: list[Any] = field(default_factory=list)  # rows with a ``story``, in matrix order


@dataclass
class CategoryBlock:
    category: Any  # a ``Category``
    groups: list[SubGroupBlock] = field(default_factory=list)
    # Rows listed without their cells: the page shows the heading and the story count, and loads
    # the rows on demand (``arena_matrix``'s ``collapse_above``).
    collapsed: bool = False

    @property
    def count(self) -> int:
        return sum(len(g.rows) for g in self.groups)

    @property
    def slug(self) -> str:
        """The category's ``category`` filter value."""
        return self.category.slug


def matrix_block_list(*, rows: Iterable[Any]) -> list[CategoryBlock]:
    """Rows (each with a ``story``) under their category heading, split into sub-groups: consecutive rows of one category
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


# The matrix shows every product up to this many, else this many (the top ones by the ranking),
# unless the visitor picks others (``show``).
MATRIX_COLUMNS = 8
# A matrix of more stories than this loads the rows of its first category only; each other
# category shows its heading and story count and loads its rows on demand.
MATRIX_COLLAPSE_ABOVE = 60


def matrix_column_list(
    *, products: Sequence[Product], ranking: Sequence[scoring.ProductKey], show: Iterable[str] = ()
) -> list[Product]:
    """The matrix's columns, in the order of ``ranking`` (product keys, best first; products it
    leaves out follow in column order): the products named in ``show`` (slugs; unknown ones
    ignored), else every product when there are at most ``MATRIX_COLUMNS``, else the first
    ``MATRIX_COLUMNS`` of the ranking."""
    known = {p.pk for p in products}
    order = [pk for pk in ranking if pk in known]
    placed = set(order)
    order += [p.pk for p in products if p.pk not in placed]
    position = {pk: i for i, pk in enumerate(order)}
    ranked = sorted(products, key=lambda p: position[p.pk])
    picked = set(show)
    chosen = [p for p in ranked if p.slug in picked]
    if chosen:
        return chosen
    return ranked[:MATRIX_COLUMNS]


STALE_ON = frozenset({"1", "on", "true", "yes"})


@dataclass(frozen=True)
class MatrixFilters:
    persona: str = ""
    category: str = ""  # a category's slug
    verdict: str = ""  # stories where at least one product has this verdict
    q: str = ""  # in the story text, any case
    sort: str = ""  # a product's slug: its verdicts order the stories of each sub-group
    # "1": stories where at least one product shown has a stale cell (stories/freshness.py)
    stale: str = ""

    @classmethod
    def from_params(cls, params: Mapping[str, str]) -> MatrixFilters:
        """Filters from query values the view has read and cleaned: spaces around them dropped,
        an unknown verdict ignored; ``stale`` on when it is ``1`` (or a checkbox's ``on``)."""
        verdict = params.get("verdict", "").strip()
        return cls(
            persona=params.get("persona", "").strip(),
            category=params.get("category", "").strip(),
            verdict=verdict if verdict in Verdict.values else "",
            q=params.get("q", "").strip(),
            sort=params.get("sort", "").strip(),
            stale="1" if params.get("stale", "").strip().lower() in STALE_ON else "",
        )

    @property
    def active(self) -> bool:
        """Whether some stories may be left out (the order, ``sort``, leaves all in)."""
        return bool(self.persona or self.category or self.verdict or self.q or self.stale)

    def as_params(self) -> dict[str, str]:
        return {k: v for k, v in vars(self).items() if v}


@dataclass
class Matrix:
    products: list[Product]  # the columns
    rows: list[MatrixRow]  # the stories shown, in matrix order (no cells in a collapsed block)
    total: int  # stories in the arena
    filters: MatrixFilters
    collapsed: set[int] = field(default_factory=set)  # categories whose rows are not loaded

    @property
    def shown(self) -> int:
        return len(self.rows)

    @cached_property
    def blocks(self) -> list[CategoryBlock]:
        blocks = matrix_block_list(rows=self.rows)
        for block in blocks:
            block.collapsed = block.category.pk in self.collapsed
        return blocks


def _sorted_by(rows: list[MatrixRow], product: int) -> list[MatrixRow]:
    """The rows with each sub-group's stories ordered by ``product``'s verdicts, strongest first
    (``scoring.verdict_strength``; equal ones keep matrix order); categories and sub-groups stay
    where they are."""
    groups: dict[tuple, int] = {}

    def key(item: tuple[int, MatrixRow]) -> tuple:
        i, row = item
        story = row.story
        group = groups.setdefault((story.category_id, story.subgroup_id), len(groups))
        cell = next((c for c in row.cells if c.product_id == product), None)
        verdict, quality = (cell.verdict, cell.quality) if cell is not None else (None, None)
        strength = scoring.verdict_strength(verdict, quality)
        return (group, -strength[0], -strength[1], i)

    return [row for _, row in sorted(enumerate(rows), key=key)]


def arena_matrix(
    *,
    arena: CountedArena,
    filters: MatrixFilters | None = None,
    products: list[Product] | None = None,
    collapse_above: int | None = None,
    fold: Iterable[str] = (),
) -> Matrix:
    """The story matrix of ``arena`` (as ``arena_get`` returns it), filtered in the database (the
    category by its slug after), with ``products`` as its columns (default: every product on the
    pages): two queries with ``products`` given, none per row. Stories and cells are plain
    records, not model instances.

    With ``collapse_above``, when more stories than that match and no category is picked, only
    the first category's rows get their cells; the others are listed in ``collapsed``. The
    categories named in ``fold`` (slugs) are listed there too, unless a category is picked."""
    filters = filters or MatrixFilters()
    products = products if products is not None else arena_product_list(arena=arena)
    story_list = _filtered_stories(arena, filters, products)
    collapsed: set[int] = set()
    if collapse_above is not None and not filters.category and len(story_list) > collapse_above:
        collapsed = {s.category_id for s in story_list} - {story_list[0].category_id}
    folded = set(fold)
    if folded and not filters.category:
        collapsed |= {s.category_id for s in story_list if s.category.slug in folded}
    loaded = [s for s in story_list if s.category_id not in collapsed] if collapsed else story_list
    columns = {p.pk: p for p in products}
    cells = _cell_rows(arena, columns, loaded if filters.active or collapsed else None)
    by = {
        (sid, pid): CellLine(
            pk, sid, columns[pid], verdict, proof, quality, as_of, backing_read=backing
        )
        for pk, sid, pid, verdict, proof, quality, as_of, backing in cells
    }
    pks = [p.pk for p in products]  # (``.pk`` is a property: once, not once per cell)
    rows = [
        MatrixRow(s, [by[key] for pid in pks if (key := (s.pk, pid)) in by]) for s in story_list
    ]
    sort = next((p for p in products if p.slug == filters.sort), None)
    if sort is not None:
        rows = _sorted_by(rows, sort.pk)
    else:
        filters = replace(filters, sort="")  # a product not shown orders nothing
    return Matrix(
        products=products,
        rows=rows,
        total=arena.story_count,
        filters=filters,
        collapsed=collapsed,
    )


def _cell_rows(
    arena: Arena, columns: Mapping[int, Product], stories: list[Story] | None
) -> Sequence[Sequence[Any]]:
    """The cells of the ``columns`` products on ``stories``, or on every story of the arena
    (None), as ``CELL_LINE_FIELDS`` and ``backing``: one query, none without a column or a
    story."""
    if not columns or stories == []:
        return []
    cells = Cell.objects.filter(product_id__in=list(columns))
    if stories is not None:
        cells = cells.filter(story_id__in=[s.pk for s in stories])
    else:
        cells = cells.filter(story__arena=arena)
    # (unordered: ``arena_matrix`` places each cell by its story and product)
    return list(cells.with_backing().order_by().values_list(*CELL_LINE_FIELDS, "backing"))


def _filtered_stories(arena: Arena, filters: MatrixFilters, products: list[Product]) -> list[Story]:
    """The stories of ``arena`` that ``filters`` keep, in matrix order: one query."""
    stories = arena_story_list(arena=arena)
    cells = Cell.objects.filter(story=OuterRef("pk")).order_by()
    if filters.persona:
        stories = stories.filter(persona__slug=filters.persona)
    if filters.verdict:
        stories = stories.filter(Exists(cells.on_pages().filter(verdict=filters.verdict)))
    if filters.q:
        stories = stories.filter(text__icontains=filters.q)
    if filters.stale:  # where at least one of the products shown has a stale cell today
        rule = freshness.stale_q(today=freshness.today(), days=freshness.stale_days())
        stories = stories.filter(
            Exists(cells.filter(rule, product_id__in=[p.pk for p in products]))
        )
    story_list = list(stories)
    if filters.category:  # by slug, which is the name's: picked here rather than in the database
        story_list = [s for s in story_list if s.category.slug == filters.category]
    return story_list
