"""How a flag is filed: the statements of a submission, written once per database vendor (raw
SQL: the ORM has no FOR SHARE, no INSERT … SELECT … WHERE and no ON CONFLICT DO NOTHING …
RETURNING), the per-client lock and the rate limit. ``flags.services.flag_submit`` runs them in
its transaction.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import cast

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import OperationalError, connection
from django.db.backends.utils import CursorWrapper
from django.utils import timezone

from arena.recompute import cell_content_changed
from arena.text import parse_rate
from flags.models import Flag, ReviewItem, Status
from stories.models import Cell


class FlagThrottled(Exception):
    """Too many flags from one client; ``retry_after`` seconds until the next is accepted."""

    def __init__(self, retry_after: int):
        self.retry_after = retry_after
        super().__init__(f"Too many flags from this client; try again in {retry_after} seconds.")


def client_lock(client: str) -> None:
    """Serialise one client's flag submissions until the transaction ends, so the rate limit and
    the one-pending-flag rule are checked and the flag inserted as one step.

    PostgreSQL: a transaction-scoped advisory lock on the client key. SQLite: every transaction
    already begins IMMEDIATE (settings), which takes the database's write lock.
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [client])


def _throttle_check(*, client: str, now: datetime) -> None:
    """Raise FlagThrottled when this client already filed FLAG_RATE flags in the window."""
    limit, window = parse_rate(settings.FLAG_RATE)
    since = now - timedelta(seconds=window)
    recent = list(
        Flag.objects.filter(client_hash=client, created_at__gte=since)
        .order_by("-created_at")
        .values_list("created_at", flat=True)[:limit]
    )
    if len(recent) >= limit:
        oldest = recent[-1]
        wait = (oldest + timedelta(seconds=window) - timezone.now()).total_seconds()
        raise FlagThrottled(max(1, math.ceil(wait)))


def cell_flag_errors(cell_id: int | None) -> dict[str, str]:
    """Why a cell cannot be flagged: it does not exist, or it is retired from the pages."""
    if cell_id is None or not Cell.objects.filter(pk=cell_id).exists():
        return {"cell": "No such cell."}
    if not Cell.objects.on_pages().filter(pk=cell_id).exists():
        return {"cell": "This verdict is retired from the arena and can no longer be flagged."}
    return {}


# ---- the statements of a submission, written once per database vendor (raw SQL: the ORM has no
# FOR SHARE, no INSERT … SELECT … WHERE and no ON CONFLICT DO NOTHING … RETURNING)

PENDING_SQL = f"status = '{Status.PENDING.value}'"  # a literal: it names the partial unique index


@dataclass(frozen=True)
class _SubmitSQL:
    insert_flag: str  # into the cell's pending item; under the rate limit; once per client
    pending_item: str  # the cell's pending item, and whether the client has a flag in it
    open_item: str  # a pending item for the cell, unless one exists


@functools.cache
def _submit_sql(vendor: str) -> _SubmitSQL:
    """The statements for a database vendor (compiled on the current connection, which is of
    that vendor). Whether the cell may be flagged is ``Cell.objects.on_pages()``'s rule."""
    on_pages = Cell.objects.on_pages().filter(pk=-1).values("pk").order_by().query
    cell_sql, cell_params = on_pages.get_compiler(connection=connection).as_sql()
    if tuple(cell_params) != (-1,):  # the one parameter is the cell's id
        raise RuntimeError(f"unexpected parameters in the cell rule: {cell_params}")
    qn = connection.ops.quote_name
    items, flags = qn(ReviewItem._meta.db_table), qn(Flag._meta.db_table)
    # PostgreSQL: a share lock on the item until the flag is in, so that a moderator resolving it
    # waits for the flag (and sees it) or, resolving first, leaves no pending item to join, while
    # other clients' flags on the cell go in side by side; SQLite transactions are serial.
    lock = " FOR SHARE" if vendor == "postgresql" else ""
    item = (
        f"SELECT id FROM {items} WHERE cell_id = %s AND {PENDING_SQL} AND EXISTS ({cell_sql}){lock}"
    )
    columns = ", ".join(qn(cast(str, f.column)) for f in _FLAG_FIELDS)
    placeholders = ", ".join("%s" for _ in _FLAG_FIELDS)
    return _SubmitSQL(
        # the rate limit: fewer than `limit` flags of this client in the window, counted on the
        # index (client_hash, created_at), reading at most `limit` of its entries
        insert_flag=(
            f"WITH item AS ({item})"
            f" INSERT INTO {flags} (item_id, {columns}) SELECT item.id, {placeholders} FROM item"
            f" WHERE (SELECT COUNT(*) FROM (SELECT 1 FROM {flags}"
            f" WHERE client_hash = %s AND created_at >= %s LIMIT %s) AS recent) < %s"
            f" ON CONFLICT (item_id, client_hash) DO NOTHING RETURNING id, item_id"
        ),
        pending_item=(
            f"SELECT id, EXISTS (SELECT 1 FROM {flags} WHERE item_id = {items}.id"
            f" AND client_hash = %s) FROM {items}"
            f" WHERE cell_id = %s AND {PENDING_SQL} AND EXISTS ({cell_sql}){lock}"
        ),
        open_item=(
            f"INSERT INTO {items} (cell_id, status, created_at, public_note, version)"
            f" SELECT %s, '{Status.PENDING.value}', %s, '', 1 WHERE EXISTS ({cell_sql})"
            f" ON CONFLICT (cell_id) WHERE {PENDING_SQL} DO NOTHING RETURNING id"
        ),
    )


# every column of a flag but its id and its item (the statement finds the item)
_FLAG_FIELDS = [f for f in Flag._meta.concrete_fields if f.name not in ("id", "item")]
_CREATED_AT = Flag._meta.get_field("created_at")


def _insert_flag(cursor: CursorWrapper, flag: Flag, sql: _SubmitSQL) -> bool:
    """Insert the flag into its cell's pending item (share-locked), unless there is none, the
    client is over the rate limit, or it has a flag in the item already. True when it went in
    (``flag.pk`` and ``flag.item`` are set then)."""
    limit, window = parse_rate(settings.FLAG_RATE)
    since = _CREATED_AT.get_db_prep_save(flag.created_at - timedelta(seconds=window), connection)
    values = [f.get_db_prep_save(getattr(flag, f.attname), connection) for f in _FLAG_FIELDS]
    cell_id = flag.cell_id
    cursor.execute(
        sql.insert_flag, [cell_id, cell_id, *values, flag.client_hash, since, limit, limit]
    )
    row = cursor.fetchone()
    if row is None:
        return False
    flag.pk = row[0]
    # a pending item has no public note yet (it is written when the item is resolved)
    flag.item = ReviewItem(pk=row[1], cell_id=cell_id, status=Status.PENDING, public_note="")
    flag._state.adding, flag._state.db = False, connection.alias
    return True


def flag_file(cursor: CursorWrapper, flag: Flag) -> None:
    """File the flag, or raise why not: ValidationError (the cell; already flagged) or
    FlagThrottled. Usually one statement and the arena's content version (the cell's page shows
    its pending dispute); the others run only when that one inserts nothing."""
    sql = _submit_sql(connection.vendor)
    cell_id, client = flag.cell_id, flag.client_hash
    created_at = _CREATED_AT.get_db_prep_save(flag.created_at, connection)
    for _attempt in range(3):
        if _insert_flag(cursor, flag, sql):
            cell_content_changed(cell_id=cell_id)
            return
        cursor.execute(sql.pending_item, [client, cell_id, cell_id])
        item = cursor.fetchone()
        if item is None:  # open the cell's item, or learn why it cannot have one
            cursor.execute(sql.open_item, [cell_id, created_at, cell_id])
            if cursor.fetchone() is None:
                errors = cell_flag_errors(cell_id)
                if errors:
                    raise ValidationError(errors)
            continue  # opened here, or by another client meanwhile: the next INSERT joins it
        _throttle_check(client=client, now=flag.created_at)
        if item[1]:
            raise ValidationError(
                {"cell": "You have already flagged this verdict; your flag is pending review."}
            )
        # the item was opened or resolved meanwhile: the next INSERT sees the one pending now
    raise OperationalError("the cell's pending review item kept changing")
