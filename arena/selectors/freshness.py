"""How fresh an arena's evidence is: each product's count of stale cells (stories/freshness.py has
the rule)."""

from __future__ import annotations

from datetime import date

from django.db.models import Count

from arena.models import Arena
from stories import freshness
from stories.models import Cell


def arena_stale_counts(
    *, arena: Arena, today: date, days: int | None = None
) -> dict[int, tuple[int, int]]:
    """``{product id: (stale cells, cells)}`` over the cells on the arena's pages, stale on
    ``today`` after ``days`` (default ``settings.EVIDENCE_STALE_DAYS``). One aggregate query."""
    days = freshness.stale_days() if days is None else days
    rows = (
        Cell.objects.on_pages()
        .filter(story__arena=arena)
        .order_by()
        .values("product_id")
        .annotate(
            cells=Count("pk"),
            stale=Count("pk", filter=freshness.stale_q(today=today, days=days)),
        )
        .values_list("product_id", "stale", "cells")
    )
    return {pid: (stale, cells) for pid, stale, cells in rows}
