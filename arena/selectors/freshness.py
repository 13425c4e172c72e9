"""How fresh an arena's evidence is: each product's count of stale cells (stories/freshness.py has
the rule)."""

from __future__ import annotations

from datetime import date, datetime

from django.db.models import Count, Min, Q

from arena.models import Arena
from arena.selectors.arenas import arena_kept
from stories import freshness
from stories.models import Cell
from stories.values import Verdict


def arena_stale_counts(
    *, arena: Arena, today: date, days: int | None = None
) -> dict[int, tuple[int, int]]:
    """``{product id: (stale cells, judged cells)}`` over the cells on the arena's pages, stale on
    ``today`` after ``days`` (default ``settings.EVIDENCE_STALE_DAYS``). One aggregate query, none
    while kept (``arena_kept``: every change to a cell bumps the arena's content version)."""
    days = freshness.stale_days() if days is None else days
    rows = (
        Cell.objects.on_pages()
        .filter(story__arena=arena)
        .order_by()
        .values("product_id")
        .annotate(
            cells=Count("pk", filter=~Q(verdict=Verdict.NA)),  # (an n/a cell is never stale)
            stale=Count("pk", filter=freshness.stale_q(today=today, days=days)),
        )
        .values_list("product_id", "stale", "cells")
    )
    return arena_kept(arena, f"stale:{today}:{days}", lambda: {pid: (s, c) for pid, s, c in rows})


def oldest_stale_scores() -> datetime | None:
    """Since when the longest-waiting arena's stored scores miss a change (its stale mark), None
    when every arena's are up to date: how far the recomputing lags (/metrics). One query."""
    return Arena.objects.aggregate(oldest=Min("scores_stale_since"))["oldest"]
