"""What the scoring module reads of an arena: plain records loaded in three queries. The recompute
stores what scoring makes of them; the review queue previews an upheld flag's effect on them."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Exists, OuterRef

from arena import scoring
from products.models import Product
from stories.models import Cell, CellChange, Story


@dataclass(frozen=True)
class ArenaInputs:
    stories: list[scoring.StoryIn]
    cells: list[scoring.CellIn]
    products: list[tuple[int, str]]  # (id, name) in column order


def arena_scoring_inputs(*, arena_id: int) -> ArenaInputs:
    """Load the plain records the scoring module needs (three queries)."""
    stories = [
        scoring.StoryIn(id=sid, weight=w, category=cat, persona=per)
        for sid, w, cat, per in Story.objects.filter(arena_id=arena_id)
        .order_by("position")
        .values_list("id", "weight", "category__name", "persona__slug")
    ]
    upheld = CellChange.objects.filter(cell=OuterRef("pk"), kind=CellChange.Kind.FLAG)
    cells = [
        scoring.CellIn(story_id=sid, product=pid, verdict=v, proof=p, quality=q, upheld=u)
        for sid, pid, v, p, q, u in Cell.objects.on_pages()
        .filter(story__arena_id=arena_id)
        .annotate(upheld=Exists(upheld))
        .values_list("story_id", "product_id", "verdict", "proof", "quality", "upheld")
    ]
    products = list(
        Product.objects.filter(arena_id=arena_id).order_by("position").values_list("id", "name")
    )
    return ArenaInputs(stories, cells, products)
