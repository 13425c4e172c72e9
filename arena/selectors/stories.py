"""One story's page: every product's cell on it."""

from __future__ import annotations

from django.db.models import Count, Q

from arena.models import Arena
from arena.selectors.cells import evidence_prefetch
from stories.models import Cell, Story


def story_get(arena: Arena, pk: int) -> Story | None:
    """A story of ``arena`` still on the pages, with ``cell_count`` (its products' cells), or
    ``None``: one query."""
    return (
        Story.objects.select_related("category", "subgroup", "persona")
        .annotate(cell_count=Count("cells", filter=Q(cells__product__retired_at__isnull=True)))
        .filter(arena=arena, pk=pk)
        .first()
    )


def story_cells(story: Story) -> list[Cell]:
    """Every product's cell for one story in column order, with evidence: two queries."""
    return list(
        Cell.objects.filter(story=story, product__retired_at__isnull=True)
        .select_related("product")
        .prefetch_related(evidence_prefetch())
        .order_by("product__position")
    )
