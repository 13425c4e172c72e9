"""The content version a page is cached and revalidated by. Every write bumps
``Arena.content_version`` in its own transaction (``arena.recompute.arena_content_changed``), so a
version read before a page's data guarantees the data is at least that new.

These run on every request for a public page, cached or not (a 304 costs little else), so they
are one indexed statement each, written out once: building the same query through the ORM costs
more than the rest of a cache hit.

Each version ends with the page cache's epoch (``CacheEpoch``, read by a subquery of the same
statement): a restore gives it a new value, so the content versions the restored database repeats
never meet the pages and ETags of the timeline it discarded.
"""

from __future__ import annotations

from django.db import connection
from django.db.models import Model

from arena.models import Arena, CacheEpoch
from stories.models import Cell, Story

BIGINT_MAX = 2**63 - 1


def _table(model: type[Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


_ARENA = _table(Arena)
_EPOCH = f"(SELECT value FROM {_table(CacheEpoch)} WHERE id = 1)"
_ARENA_SQL = f"SELECT id, content_version, {_EPOCH} FROM {_ARENA} WHERE slug = %s"
_CELL_SQL = (
    f"SELECT a.id, a.content_version, {_EPOCH} FROM {_table(Cell)} c"
    f" JOIN {_table(Story)} s ON s.id = c.story_id"
    f" JOIN {_ARENA} a ON a.id = s.arena_id WHERE c.id = %s"
)
_SITE_SQL = (
    "SELECT COUNT(*), COALESCE(SUM(content_version), 0), COALESCE(MAX(id), 0),"
    f" {_EPOCH} FROM {_ARENA}"
)


def _one(sql: str, params: tuple = ()) -> tuple | None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def _in_epoch(version: str, epoch: str | None) -> str:
    return f"{version}.e{epoch}" if epoch else version  # (no row: a database never migrated)


def _version(row: tuple | None) -> str | None:
    # The arena's id comes first: an arena deleted and made again under the same slug starts its
    # versions afresh, and must not meet the pages kept for the old one (ids are never reused but
    # by a restore, which moves the epoch).
    return None if row is None else _in_epoch(f"{row[0]}-{row[1]}", row[2])


def arena_version_get(*, slug: str) -> str | None:
    """The version of an arena's pages (None: no such arena)."""
    return _version(_one(_ARENA_SQL, (slug,)))


def cell_version_get(*, pk: int) -> str | None:
    """The version of a cell's proof page: that of its arena (None: no such cell)."""
    if not 0 < pk <= BIGINT_MAX:  # the URL takes any digits; the database would refuse them
        return None
    return _version(_one(_CELL_SQL, (pk,)))


def site_version_get() -> str:
    """The version of the pages that span every arena (the list of arenas, recent changes): it
    moves when any arena's version moves (their sum only grows) or an arena comes or goes."""
    row = _one(_SITE_SQL)
    assert row is not None
    return _in_epoch("{}.{}.{}".format(*row[:3]), row[3])
