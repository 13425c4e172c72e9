"""Reads: querysets and plain structures with their joins in place, a constant number of queries
whatever the arena's size. Pages and the API read stored scores from here; nothing is scored here
except head-to-head rounds (``arena.scoring.compare``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count, Exists, OuterRef, Prefetch, Q, Subquery
from django.http import Http404

from arena import scoring
from arena.models import AdjacentArena, Arena, Category, PersonaResult, ProductScore
from arena.text import arena_slugify, clean_text
from products.models import Product
from stories.models import Cell, CellChange, Evidence, Story
from stories.values import CellValue


def arena_list():
    """Arenas with product and story counts and the leader's name (one query)."""
    leader = ProductScore.objects.filter(arena=OuterRef("pk"), rank=1).values("product__name")[:1]
    leader_slug = ProductScore.objects.filter(arena=OuterRef("pk"), rank=1).values("product__slug")[
        :1
    ]
    return Arena.objects.annotate(
        # retired products and stories are kept on record but off the pages
        product_count=Count("products", filter=Q(products__retired_at__isnull=True), distinct=True),
        story_count=Count("stories", filter=Q(stories__retired_at__isnull=True), distinct=True),
        leader_name=Subquery(leader),
        leader_slug=Subquery(leader_slug),
    ).order_by("name")


def arena_get(slug: str) -> Arena:
    arena = arena_list().filter(slug=slug).first()
    if arena is None:
        raise Http404(f"No arena {slug!r}")
    return arena


def arena_products(arena: Arena) -> list[Product]:
    return list(Product.objects.filter(arena=arena).order_by("position"))


def arena_scores(arena: Arena) -> list[ProductScore]:
    """Stored leaderboard rows in rank order, with product and head-to-head partner."""
    return list(
        ProductScore.objects.filter(arena=arena).select_related("product", "vs").order_by("rank")
    )


def arena_persona_results(arena: Arena) -> list[PersonaResult]:
    return list(
        PersonaResult.objects.filter(arena=arena)
        .select_related("persona", "winner", "runner_up")
        .order_by("position")
    )


def arena_adjacent(arena: Arena) -> list[AdjacentArena]:
    return list(AdjacentArena.objects.filter(arena=arena).order_by("position"))


def arena_stories(arena: Arena):
    return (
        Story.objects.filter(arena=arena)
        .select_related("category", "subgroup", "persona")
        .order_by("position")
    )


@dataclass
class MatrixRow:
    story: Story
    cells: list[Cell]  # in product column order; None-free


@dataclass
class MatrixGroup:
    category: object
    subgroup: object | None
    rows: list[MatrixRow] = field(default_factory=list)


def arena_matrix(
    arena: Arena, products: list[Product] | None = None, stories=None
) -> list[MatrixRow]:
    """Every story with its cells in column order: two queries."""
    products = products if products is not None else arena_products(arena)
    stories = list(stories if stories is not None else arena_stories(arena))
    cells: dict[tuple[int, int], Cell] = {
        (c.story_id, c.product_id): c
        for c in Cell.objects.filter(story__arena=arena).only(
            "id", "story_id", "product_id", "verdict", "proof", "quality"
        )
    }
    return [
        MatrixRow(story=s, cells=[cells[(s.pk, p.pk)] for p in products if (s.pk, p.pk) in cells])
        for s in stories
    ]


def group_rows(rows: list[MatrixRow]) -> list[MatrixGroup]:
    """Consecutive rows of one category and sub-group form one table, as on the published page."""
    groups: list[MatrixGroup] = []
    for row in rows:
        key = (row.story.category_id, row.story.subgroup_id)
        if not groups or (groups[-1].category.pk, getattr(groups[-1].subgroup, "pk", None)) != key:
            groups.append(MatrixGroup(row.story.category, row.story.subgroup))
        groups[-1].rows.append(row)
    return groups


def product_get(arena: Arena, slug: str) -> Product:
    product = Product.objects.filter(arena=arena, slug=slug).first()
    if product is None:
        raise Http404(f"No product {slug!r} in {arena.slug}")
    return product


@dataclass
class CompareRow:
    story: Story
    number: int
    round: str  # product slug or "drawn"
    cell_a: Cell
    cell_b: Cell


@dataclass
class Comparison:
    a: Product
    b: Product
    summary: scoring.CompareSummary
    rows: list[CompareRow]

    @property
    def groups(self) -> list[tuple[object, object, list[CompareRow]]]:
        out: list[tuple[object, object, list[CompareRow]]] = []
        for row in self.rows:
            key = (row.story.category, row.story.subgroup)
            if not out or (out[-1][0].pk, getattr(out[-1][1], "pk", None)) != (
                key[0].pk,
                getattr(key[1], "pk", None),
            ):
                out.append((key[0], key[1], []))
            out[-1][2].append(row)
        return out


def evidence_prefetch() -> Prefetch:
    return Prefetch("evidence", queryset=Evidence.objects.order_by("position"))


def comparison(arena: Arena, a: Product, b: Product) -> Comparison:
    """A vs B built from cells (not from stored pages): four queries."""
    stories = list(arena_stories(arena))
    cells = Cell.objects.filter(story__arena=arena, product__in=[a, b]).prefetch_related(
        evidence_prefetch()
    )
    by = {(c.story_id, c.product_id): c for c in cells}
    for c in by.values():  # the two products are loaded already: no query per cell for cell.product
        c.product = a if c.product_id == a.pk else b

    def plain(c: Cell) -> scoring.CellIn:
        return scoring.CellIn(c.story_id, c.product_id, c.verdict, c.proof, c.quality)

    story_in = [scoring.StoryIn(s.pk, s.weight, s.category.name, s.persona.slug) for s in stories]
    cells_a = {sid: plain(c) for (sid, pid), c in by.items() if pid == a.pk}
    cells_b = {sid: plain(c) for (sid, pid), c in by.items() if pid == b.pk}
    summary = scoring.compare(story_in, cells_a, cells_b, a.pk, b.pk)
    story_by_id = {s.pk: s for s in stories}
    rows: list[CompareRow] = []
    number = 0
    prev_key = None
    for rnd in summary.rounds:
        story = story_by_id[rnd.story_id]
        key = (story.category_id, story.subgroup_id)
        number = number + 1 if key == prev_key else 1
        prev_key = key
        winner = rnd.winner
        round_slug = "drawn" if winner == scoring.DRAWN else (a.slug if winner == a.pk else b.slug)
        rows.append(
            CompareRow(story, number, round_slug, by[(story.pk, a.pk)], by[(story.pk, b.pk)])
        )
    return Comparison(a, b, summary, rows)


def cell_get(pk: int) -> Cell:
    cell = (
        Cell.objects.select_related(
            "story__arena", "story__category", "story__subgroup", "story__persona", "product"
        )
        .prefetch_related(evidence_prefetch())
        .filter(pk=pk)
        .first()
    )
    if cell is None:
        raise Http404(f"No cell {pk}")
    return cell


# ---------------------------------------------------------------- public pages
# Everything below serves the HTML pages: each function runs a fixed number of queries whatever the
# arena's size, and reads stored scores (ordering them is not scoring them).

VERDICT_FILTERS = ("full", "partial", "disputed", "none", "n/a")
QUERY_MAX_LENGTH = 200


def _result_of(score: ProductScore) -> scoring.ProductResult:
    """A stored leaderboard row as the scoring module's plain record, so that ``scoring.order_by``
    orders stored values by the published rules."""
    return scoring.ProductResult(
        product=str(score.product_id),
        name=score.product.name,
        pa_score=score.pa_score,
        category_scores=score.category_scores,
        persona_scores=score.persona_scores,
        verified=score.verified,
        with_evidence=score.with_evidence,
        disputed=score.disputed,
        contradicted=score.contradicted,
        upheld=score.upheld,
        integrity=score.integrity,
        confidence=score.confidence,
    )


@dataclass(frozen=True)
class RankOption:
    key: str
    label: str


@dataclass
class Leaderboard:
    key: str  # the rank key in effect ("pa" when the asked one is unknown)
    label: str
    rows: list[ProductScore]  # stored rows in the asked order; ``row.position`` is the shown rank
    personas: list[str]  # persona slugs, the persona score columns
    categories: list[str]  # category names, for the rank options
    category: str | None  # the category ranked by, shown as an extra column
    options: list[tuple[str, list[RankOption]]]

    @property
    def leader(self) -> ProductScore | None:
        return self.rows[0] if self.rows else None


def rank_options(categories: list[str], personas: list[str]) -> list[tuple[str, list[RankOption]]]:
    return [
        ("Overall", [RankOption("pa", "PA Score")]),
        ("Category", [RankOption(f"category:{c}", c) for c in categories]),
        ("User type", [RankOption(f"persona:{p}", p) for p in personas]),
        (
            "Evidence",
            [RankOption("verified", "Verified share"), RankOption("integrity", "Integrity")],
        ),
    ]


def leaderboard(arena: Arena, key: str = "pa", categories: list[str] | None = None) -> Leaderboard:
    """The stored leaderboard ordered by one rank key (``pa``, ``category:<name>``,
    ``persona:<slug>``, ``verified``, ``integrity``) with ``scoring.order_by``: one query.
    ``categories`` gives the category names in matrix order (else: alphabetical)."""
    scores = arena_scores(arena)
    if categories is None:
        categories = sorted({name for s in scores for name in s.category_scores})
    personas: list[str] = sorted({slug for s in scores for slug in s.persona_scores})
    options = rank_options(categories, personas)
    labels = {o.key: o.label for _, group in options for o in group}
    if key not in labels:
        key = "pa"
    by_id = {str(s.product_id): s for s in scores}
    ordered = [by_id[r.product] for r in scoring.order_by([_result_of(s) for s in scores], key)]
    for position, row in enumerate(ordered, start=1):
        row.position = position
    category = key.split(":", 1)[1] if key.startswith("category:") else None
    group = {"category": "Category", "persona": "User type"}.get(key.split(":", 1)[0])
    label = f"{group}: {labels[key]}" if group else labels[key]
    return Leaderboard(key, label, ordered, personas, categories, category, options)


@dataclass(frozen=True, slots=True)
class MatrixCell:
    """What a matrix cell shows: a lighter stand-in for ``stories.Cell``."""

    pk: int
    story_id: int
    product_id: int
    verdict: str
    proof: str | None
    quality: int | None

    @property
    def id(self) -> int:
        return self.pk

    @property
    def value(self) -> CellValue:
        return CellValue(self.verdict, self.proof, self.quality)

    @property
    def symbol(self) -> str:
        return self.value.symbol

    @property
    def proof_letter(self) -> str:
        return self.value.proof_letter


@dataclass(frozen=True)
class MatrixFilters:
    persona: str = ""
    category: str = ""
    verdict: str = ""
    q: str = ""

    @classmethod
    def from_query(cls, data) -> MatrixFilters:
        """Filters from a query string; any value is safe to pass on to the database (control
        characters dropped, lengths capped: PostgreSQL refuses a NUL)."""

        def value(name: str) -> str:
            return clean_text(data.get(name) or "").strip()[:QUERY_MAX_LENGTH]

        verdict = value("verdict")
        return cls(
            persona=value("persona"),
            category=value("category"),
            verdict=verdict if verdict in VERDICT_FILTERS else "",
            q=value("q"),
        )

    @property
    def active(self) -> bool:
        return bool(self.persona or self.category or self.verdict or self.q)

    def as_params(self) -> dict[str, str]:
        return {k: v for k, v in vars(self).items() if v}


@dataclass
class SubGroupBlock:
    subgroup: object | None
    rows: list[MatrixRow]


@dataclass
class CategoryBlock:
    category: Category
    groups: list[SubGroupBlock] = field(default_factory=list)


@dataclass
class Matrix:
    products: list[Product]
    blocks: list[CategoryBlock]
    shown: int
    total: int
    filters: MatrixFilters
    categories: list[Category]


def category_slug(category: Category) -> str:
    return arena_slugify(category.name)


def arena_categories(arena: Arena) -> list[Category]:
    """The categories that hold a story still on the pages."""
    categories = list(
        Category.objects.filter(arena=arena)
        .filter(Exists(Story.objects.filter(category=OuterRef("pk"))))
        .order_by("position")
    )
    for c in categories:
        c.slug = category_slug(c)
    return categories


def category_blocks(rows: list[MatrixRow]) -> list[CategoryBlock]:
    """Rows of one category under one heading, split into their sub-groups, in matrix order."""
    blocks: list[CategoryBlock] = []
    for group in group_rows(rows):
        if not blocks or blocks[-1].category.pk != group.category.pk:
            blocks.append(CategoryBlock(group.category))
        blocks[-1].groups.append(SubGroupBlock(group.subgroup, group.rows))
    return blocks


def matrix(
    arena: Arena,
    filters: MatrixFilters | None = None,
    products: list[Product] | None = None,
    categories: list[Category] | None = None,
) -> Matrix:
    """The story matrix, filtered in the database: four queries (three with ``products`` and
    ``categories`` given), none of them per row."""
    filters = filters or MatrixFilters()
    products = products if products is not None else arena_products(arena)
    categories = categories if categories is not None else arena_categories(arena)
    stories = arena_stories(arena)
    if filters.persona:
        stories = stories.filter(persona__slug=filters.persona)
    if filters.category:
        match = [c.pk for c in categories if c.slug == filters.category]
        stories = stories.filter(category_id__in=match)
    if filters.verdict:
        stories = stories.filter(
            Exists(Cell.objects.filter(story=OuterRef("pk"), verdict=filters.verdict))
        )
    if filters.q:
        stories = stories.filter(text__icontains=filters.q)
    story_list = list(stories)
    cells = Cell.objects.all()
    if filters.active:
        cells = (
            cells.filter(story_id__in=[s.pk for s in story_list]) if story_list else cells.none()
        )
    else:
        cells = cells.filter(story__arena=arena)
    # Plain tuples, not model instances: a 30 × 300 matrix has 9,000 cells.
    by = {
        (sid, pid): MatrixCell(pk, sid, pid, verdict, proof, quality)
        for pk, sid, pid, verdict, proof, quality in cells.values_list(
            "id", "story_id", "product_id", "verdict", "proof", "quality"
        )
    }
    rows = [
        MatrixRow(s, [by[(s.pk, p.pk)] for p in products if (s.pk, p.pk) in by]) for s in story_list
    ]
    return Matrix(
        products=products,
        blocks=category_blocks(rows),
        shown=len(story_list),
        total=arena.story_count,
        filters=filters,
        categories=categories,
    )


def adjacent_with_links(arena: Arena) -> list[AdjacentArena]:
    """Adjacent arenas, each with ``.slug`` set when that arena is on this site: two queries."""
    adjacent = arena_adjacent(arena)
    here = dict(
        Arena.objects.filter(name__in=[a.name for a in adjacent]).values_list("name", "slug")
    )
    for a in adjacent:
        a.slug = here.get(a.name)
    return adjacent


def pair_get(arena: Arena, a: str, b: str) -> tuple[Product, Product]:
    """Both products of a head-to-head in one query; 404 unless they are two products here."""
    found = {p.slug: p for p in Product.objects.filter(arena=arena, slug__in=[a, b])}
    if a == b or a not in found or b not in found:
        raise Http404(f"No head-to-head {a!r} vs {b!r} in {arena.slug}")
    return found[a], found[b]


@dataclass
class ProductRow:
    story: Story
    cell: Cell | None


@dataclass
class ProductPage:
    product: Product
    score: ProductScore | None
    categories: list[tuple[Category, int | None]]
    personas: list[tuple[PersonaResult, int | None]]
    blocks: list[CategoryBlock]  # rows carry a one-cell list: this product's cell


def product_page(arena: Arena, product: Product) -> ProductPage:
    """A product's stored scores and its cells in matrix order: five queries."""
    score = ProductScore.objects.filter(product=product).select_related("vs").first()
    categories = arena_categories(arena)
    persona_results = arena_persona_results(arena)
    stories = list(arena_stories(arena))
    by_story = {
        c.story_id: c
        for c in Cell.objects.filter(product=product).only(
            "id", "story_id", "product_id", "verdict", "proof", "quality"
        )
    }
    for cell in by_story.values():
        cell.product = product
    rows = [MatrixRow(s, [by_story[s.pk]] if s.pk in by_story else []) for s in stories]
    cat_scores = score.category_scores if score else {}
    per_scores = score.persona_scores if score else {}
    return ProductPage(
        product=product,
        score=score,
        categories=[(c, cat_scores.get(c.name)) for c in categories],
        personas=[(r, per_scores.get(r.persona.slug)) for r in persona_results],
        blocks=category_blocks(rows),
    )


def story_get(arena: Arena, pk: int) -> Story:
    story = (
        Story.objects.select_related("category", "subgroup", "persona")
        .annotate(cell_count=Count("cells", filter=Q(cells__product__retired_at__isnull=True)))
        .filter(arena=arena, pk=pk)
        .first()
    )
    if story is None:
        raise Http404(f"No story {pk} in {arena.slug}")
    return story


def story_cells(story: Story) -> list[Cell]:
    """Every product's cell for one story, with evidence: two queries."""
    return list(
        Cell.objects.filter(story=story, product__retired_at__isnull=True)
        .select_related("product")
        .prefetch_related(evidence_prefetch())
        .order_by("product__position")
    )


@dataclass
class HeadToHeadLink:
    other: Product
    other_cell: Cell
    round: str  # "won", "lost" or "drawn", from this cell's side


@dataclass
class CellPage:
    cell: Cell
    changes: list[CellChange]
    head_to_heads: list[HeadToHeadLink]


def cell_page(pk: int) -> CellPage:
    """A cell with its evidence, its verdict history and the head-to-heads its story appears in
    (its product against each other product where neither cell is n/a): four queries."""
    cell = cell_get(pk)
    changes = list(CellChange.objects.filter(cell=cell).order_by("-changed_at", "-pk"))
    others = (
        Cell.objects.filter(story_id=cell.story_id, product__retired_at__isnull=True)
        .exclude(pk=cell.pk)
        .select_related("product")
        .order_by("product__position")
    )

    def plain(c: Cell) -> scoring.CellIn:
        return scoring.CellIn(c.story_id, str(c.product_id), c.verdict, c.proof, c.quality)

    links = []
    if scoring.is_applicable(plain(cell)):
        mine = plain(cell)
        for other in others:
            if not scoring.is_applicable(plain(other)):
                continue
            winner = scoring.round_winner(mine, plain(other))
            outcome = (
                "drawn"
                if winner == scoring.DRAWN
                else ("won" if winner == mine.product else "lost")
            )
            links.append(HeadToHeadLink(other.product, other, outcome))
    return CellPage(cell, changes, links)
