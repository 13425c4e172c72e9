"""A product's page: its stored scores and its verdict on every story, in matrix order."""

from __future__ import annotations

from dataclasses import dataclass

from arena.models import Arena, Category, PersonaResult, ProductScore
from arena.selectors.arenas import arena_category_list, arena_persona_result_list
from arena.selectors.matrix import CategoryBlock, arena_matrix
from products.models import Product


def product_get(*, arena: Arena, slug: str) -> Product | None:
    """A product of ``arena`` still on the pages, or ``None``: one query."""
    return Product.objects.filter(arena=arena, slug=slug).first()


@dataclass
class ProductPage:
    product: Product
    score: ProductScore | None
    categories: list[tuple[Category, int | None]]  # each category with the product's score
    personas: list[tuple[PersonaResult, int | None]]  # each persona's result with its score
    blocks: list[CategoryBlock]  # the matrix with this product's column only


def product_page_get(*, arena: Arena, product: Product) -> ProductPage:
    """A product's stored scores and its cells in matrix order: five queries."""
    score = ProductScore.objects.filter(product=product).select_related("vs").first()
    categories = arena_category_list(arena=arena)
    persona_results = arena_persona_result_list(arena=arena)
    matrix = arena_matrix(arena=arena, products=[product])
    cat_scores = score.category_scores if score else {}
    per_scores = score.persona_scores if score else {}
    return ProductPage(
        product=product,
        score=score,
        categories=[(c, cat_scores.get(c.name)) for c in categories],
        personas=[(r, per_scores.get(r.persona.slug)) for r in persona_results],
        blocks=matrix.blocks,
    )
