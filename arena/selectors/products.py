"""A product's page: its stored scores and its verdict on every story, in matrix order."""

from __future__ import annotations

from dataclasses import dataclass

from arena import scoring
from arena.models import Arena, Category, PersonaResult, ProductScore
from arena.selectors.arenas import (
    CountedArena,
    arena_category_list,
    arena_persona_result_list,
    arena_product_list,
)
from arena.selectors.matrix import CategoryBlock, arena_matrix
from products.models import Product
from stories import freshness
from stories.values import Verdict


def product_get(
    *, arena: Arena, slug: str, products: list[Product] | None = None
) -> Product | None:
    """A product of ``arena`` still on the pages, or ``None``. ``products``: the arena's product
    list when the caller has it already (else one query)."""
    if products is None:
        products = arena_product_list(arena=arena)
    return next((p for p in products if p.slug == slug), None)


@dataclass
class ProductPage:
    product: Product
    score: ProductScore | None
    categories: list[tuple[Category, int | None]]  # each category with the product's score
    personas: list[tuple[PersonaResult, int | None]]  # each persona's result with its score
    blocks: list[CategoryBlock]  # the matrix with this product's column only
    stale: StaleShare | None = None  # how many of its cells have stale evidence


@dataclass(frozen=True)
class StaleShare:
    """A product's cells whose evidence is stale (stories/freshness.py), of its judged
    (applicable) cells: an n/a cell is never stale, so it is not counted either."""

    stale: int
    cells: int
    days: int  # stale after this many days

    @property
    def percent(self) -> int:
        return scoring.round_half_up(100 * self.stale / self.cells) if self.cells else 0


def product_page_get(*, arena: CountedArena, product: Product) -> ProductPage:
    """A product's stored scores and its cells in matrix order: five queries."""
    # its stored scores with their head-to-head partner
    score = ProductScore.objects.filter(product=product).select_related("vs").first()
    if score is not None:
        score.product = product
    categories = arena_category_list(arena=arena)
    persona_results = arena_persona_result_list(arena=arena)
    matrix = arena_matrix(arena=arena, products=[product])
    cat_scores = score.category_scores if score else {}
    per_scores = score.persona_scores if score else {}
    # its share of stale cells, from the cells read for its column (the same count as
    # ``arena_stale_counts``, without another query)
    today, days = freshness.today(), freshness.stale_days()
    cells = [c for row in matrix.rows for c in row.cells if c.verdict != Verdict.NA]
    stale = sum(
        freshness.is_stale(c.verdict, c.evidence_as_of, today=today, days=days) for c in cells
    )
    return ProductPage(
        product=product,
        score=score,
        categories=[(c, cat_scores.get(c.name)) for c in categories],
        personas=[(r, per_scores.get(r.persona.slug)) for r in persona_results],
        blocks=matrix.blocks,
        stale=StaleShare(stale=stale, cells=len(cells), days=days),
    )
