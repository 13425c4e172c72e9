"""What the scoring module reads of an arena: plain records loaded in four queries. The recompute
stores what scoring makes of them; the review queue previews an upheld flag's effect on them."""

from __future__ import annotations

from dataclasses import dataclass

from arena import scoring
from products.models import Product
from stories.models import Cell, CellChange, Story


@dataclass(frozen=True)
class ArenaInputs:
    stories: list[scoring.StoryIn]
    cells: list[scoring.CellIn]
    products: list[tuple[int, str]]  # (id, name) in column order


def arena_scoring_inputs(*, arena_id: int) -> ArenaInputs:
    """Load the plain records the scoring module needs (four queries; the cells unordered, and
    which of them had a flag upheld as one list of ids rather than a subquery per cell)."""
    stories = [
        scoring.StoryIn(id=sid, weight=w, category=cat, persona=per)
        for sid, w, cat, per in Story.objects.filter(arena_id=arena_id)
        .order_by("position")
        .values_list("id", "weight", "category__name", "persona__slug")
    ]
    upheld = set(
        CellChange.objects.filter(kind=CellChange.Kind.FLAG, cell__story__arena_id=arena_id)
        .order_by()
        .values_list("cell_id", flat=True)
    )
    cells = [
        scoring.CellIn(
            story_id=sid, product=pid, verdict=v, proof=p, quality=q, upheld=pk in upheld
        )
        for pk, sid, pid, v, p, q in Cell.objects.on_pages()
        .filter(story__arena_id=arena_id)
        .order_by()
        .values_list("pk", "story_id", "product_id", "verdict", "proof", "quality")
    ]
    products = list(
        Product.objects.filter(arena_id=arena_id).order_by("position").values_list("id", "name")
    )
    return ArenaInputs(stories, cells, products)
