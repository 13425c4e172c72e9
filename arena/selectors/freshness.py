"""How fresh an arena's evidence is: each product's count of stale cells (stories/freshness.py has
the rule)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from datetime import date, datetime

from django.db import router
from django.db.models import Count, Min, Q

from arena.models import Arena
from stories import freshness
from stories.models import Cell
from stories.values import Verdict

# The counts of the last arenas asked for, by arena, content version, day and stale age: every
# change to a cell or its evidence bumps the arena's content version (as for the page cache), so a
# kept count is never out of date; pages rendered anew (another ``?weights=``, a new filter) then
# skip the aggregate. At most ``_KEPT_MAX`` entries, the oldest dropped first.
_kept: OrderedDict[tuple, dict[int, tuple[int, int]]] = OrderedDict()
_KEPT_MAX = 64
_lock = threading.Lock()


def arena_stale_counts(
    *, arena: Arena, today: date, days: int | None = None
) -> dict[int, tuple[int, int]]:
    """``{product id: (stale cells, judged cells)}`` over the cells on the arena's pages, stale on
    ``today`` after ``days`` (default ``settings.EVIDENCE_STALE_DAYS``). One aggregate query, or
    none when this process counted the same content version of the arena on the same day."""
    days = freshness.stale_days() if days is None else days
    key = (router.db_for_read(Cell), arena.pk, arena.content_version, today, days)
    counts = _kept.get(key)
    if counts is None:
        counts = _stale_counts(arena, today, days)
        with _lock:  # gunicorn's threads share it
            _kept[key] = counts
            while len(_kept) > _KEPT_MAX:
                _kept.popitem(last=False)
    return dict(counts)


def stale_counts_forget() -> None:
    """Forget the kept counts (the tests: each test's database starts its content versions anew)."""
    with _lock:
        _kept.clear()


def _stale_counts(arena: Arena, today: date, days: int) -> dict[int, tuple[int, int]]:
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
    return {pid: (stale, cells) for pid, stale, cells in rows}


def oldest_stale_scores() -> datetime | None:
    """Since when the longest-waiting arena's stored scores miss a change (its stale mark), None
    when every arena's are up to date: how far the recomputing lags (/metrics). One query."""
    return Arena.objects.aggregate(oldest=Min("scores_stale_since"))["oldest"]
