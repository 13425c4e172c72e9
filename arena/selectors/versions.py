"""The content version a page is cached and revalidated by (one indexed query): every write bumps
``Arena.content_version``; each ends with the cache's epoch (``CacheEpoch``), which a restore moves."""

from __future__ import annotations

from django.db.models import Count, Max, Subquery, Sum
from django.db.models.functions import Coalesce

from arena.models import Arena, CacheEpoch
from stories.models import Cell

BIGINT_MAX = 2**63 - 1
_EPOCH = Subquery(CacheEpoch.objects.filter(pk=1).values("value"))
# Built once (querysets are immutable); the arena's id first: one remade under an old slug restarts.
_ARENAS = Arena.objects.order_by().values_list("pk", "content_version", _EPOCH)
_CELLS = Cell.objects.order_by().values_list(
    "story__arena_id", "story__arena__content_version", _EPOCH
)


def _in_epoch(version: str, epoch: str | None) -> str:
    return f"{version}.e{epoch}" if epoch else version  # (no row: a database never migrated)


def arena_version_get(*, slug: str) -> str | None:
    """The version of an arena's pages (None: no such arena)."""
    row = _ARENAS.filter(slug=slug).first()
    return None if row is None else _in_epoch(f"{row[0]}-{row[1]}", row[2])


def cell_version_get(*, pk: int) -> str | None:
    """The version of a cell's proof page: its arena's (None: no such cell)."""
    if not 0 < pk <= BIGINT_MAX:  # the URL takes any digits; the database would refuse them
        return None
    row = _CELLS.filter(pk=pk).first()
    return None if row is None else _in_epoch(f"{row[0]}-{row[1]}", row[2])


def site_version_get() -> str:
    """The version of the pages that span every arena (their versions' sum only grows)."""
    totals = Arena.objects.aggregate(
        count=Count("pk"),
        versions=Coalesce(Sum("content_version"), 0),
        last=Coalesce(Max("pk"), 0),
        # (with no arena to aggregate over, the subquery itself)
        epoch=Coalesce(Max(_EPOCH), _EPOCH),
    )
    return _in_epoch("{count}.{versions}.{last}".format(**totals), totals["epoch"])
