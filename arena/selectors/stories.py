"""One story's page: every product's cell on it."""

from __future__ import annotations

from arena.models import Arena, Source
from arena.selectors.cells import evidence_prefetch
from arena.selectors.sources import cited_source_map
from stories.models import Cell, Story


def story_get(*, arena: Arena, pk: int) -> Story | None:
    """A story of ``arena`` still on the pages, or ``None``: one query."""
    return (
        Story.objects.select_related("category", "subgroup", "persona")
        .filter(arena=arena, pk=pk)
        .first()
    )


def story_cited_sources(*, story: Story, cells: list[Cell]) -> dict[str, Source]:
    """The arena's source list entries the cells' published detail cites: one query."""
    texts = [
        text
        for c in cells
        if c.detail_published
        for text in (c.rationale, *(e.source for e in c.evidence.all()))
    ]
    return cited_source_map(arena_id=story.arena_id, texts=texts)


def story_cell_list(*, story: Story) -> list[Cell]:
    """Every product's cell for one story in column order, with evidence: two queries."""
    return list(
        Cell.objects.on_pages()
        .filter(story=story)
        .select_related("product")
        .prefetch_related(evidence_prefetch())
        .order_by("product__position")
    )
