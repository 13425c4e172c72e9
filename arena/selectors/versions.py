"""The content version a page is cached and revalidated by. Every write bumps
``Arena.content_version`` in its own transaction (``arena.recompute.arena_content_changed``), so a
version read before a page's data guarantees the data is at least that new.

These run on every request for a public page, cached or not (a 304 costs little else): one
indexed query each.

Each version ends with the page cache's epoch (``CacheEpoch``, read by a subquery of the same
query): a restore gives it a new value, so the content versions the restored database repeats
never meet the pages and ETags of the timeline it discarded.
"""

from __future__ import annotations

from django.db.models import Count, Max, Subquery, Sum
from django.db.models.functions import Coalesce

from arena.models import Arena, CacheEpoch
from stories.models import Cell

BIGINT_MAX = 2**63 - 1


def _epoch() -> Subquery:
    return Subquery(CacheEpoch.objects.filter(pk=1).values("value"))


def _in_epoch(version: str, epoch: str | None) -> str:
    return f"{version}.e{epoch}" if epoch else version  # (no row: a database never migrated)


def _version(row: tuple[int, int, str | None] | None) -> str | None:
    # The arena's id comes first: an arena deleted and made again under the same slug starts its
    # versions afresh, and must not meet the pages kept for the old one (ids are never reused but
    # by a restore, which moves the epoch).
    return None if row is None else _in_epoch(f"{row[0]}-{row[1]}", row[2])


# Built once, as querysets are immutable: a lookup adds only its filter, and building the whole
# query each time would cost a request served from the cache more than the rest of it.
_ARENAS = Arena.objects.order_by().values_list("pk", "content_version", _epoch())
# (no ordering: a cell's default one would join its product)
_CELLS = Cell.objects.order_by().values_list(
    "story__arena_id", "story__arena__content_version", _epoch()
)


def arena_version_get(*, slug: str) -> str | None:
    """The version of an arena's pages (None: no such arena)."""
    return _version(_ARENAS.filter(slug=slug).first())


def cell_version_get(*, pk: int) -> str | None:
    """The version of a cell's proof page: that of its arena (None: no such cell)."""
    if not 0 < pk <= BIGINT_MAX:  # the URL takes any digits; the database would refuse them
        return None
    return _version(_CELLS.filter(pk=pk).first())


def site_version_get() -> str:
    """The version of the pages that span every arena (the list of arenas, recent changes): it
    moves when any arena's version moves (their sum only grows) or an arena comes or goes."""
    totals = Arena.objects.aggregate(
        count=Count("pk"),
        versions=Coalesce(Sum("content_version"), 0),
        last=Coalesce(Max("pk"), 0),
        # (the epoch in the same query: aggregate() takes only aggregates, and with no arena to
        # aggregate over, the subquery itself)
        epoch=Coalesce(Max(_epoch()), _epoch()),
    )
    return _in_epoch("{count}.{versions}.{last}".format(**totals), totals["epoch"])
