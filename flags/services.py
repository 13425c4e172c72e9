"""Writes of the flags app: submitting a flag and resolving a review item, exactly once.

Each takes one input value from ``flags.inputs`` (``FlagInput`` for a visitor's flag,
``ModerationDecision`` for a moderator's decision), which the form, the API serializers and the
admin build; the rules on those values are theirs, the rules that need the database are here.
Flags on one cell are grouped into one pending ReviewItem. Resolving uses a version check (a
conditional UPDATE), so two moderators at once, or a second attempt, change nothing (SQLite ignores
``select_for_update``).
"""

from __future__ import annotations

import functools
import math
from datetime import datetime, timedelta
from typing import cast

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, OperationalError, connection, transaction
from django.db.backends.utils import CursorWrapper
from django.db.models import F, Field
from django.utils import timezone

from arena.text import parse_rate
from flags.inputs import FlagInput, ModerationDecision
from flags.models import Flag, ModeratorAction, ReviewItem, Status
from flags.selectors import review_item_proposal, user_can_moderate
from stories.models import Cell, CellChange
from stories.services import cell_set_value
from stories.values import CellValue


class FlagThrottled(Exception):
    """Too many flags from one client; ``retry_after`` seconds until the next is accepted."""

    def __init__(self, retry_after: int):
        self.retry_after = retry_after
        super().__init__(f"Too many flags from this client; try again in {retry_after} seconds.")


class AlreadyResolved(Exception):
    """The review item was resolved by someone else (or by an earlier attempt)."""


def _lock_client(client: str) -> None:
    """Serialise one client's flag submissions until the transaction ends, so the rate limit and
    the one-pending-flag rule are checked and the flag inserted as one step.

    PostgreSQL: a transaction-scoped advisory lock on the client key. SQLite: every transaction
    already begins IMMEDIATE (settings), which takes the database's write lock.
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [client])


def _throttle_check(*, client: str) -> None:
    """Raise FlagThrottled when this client already filed FLAG_RATE flags in the window."""
    limit, window = parse_rate(settings.FLAG_RATE)
    since = timezone.now() - timedelta(seconds=window)
    recent = list(
        Flag.objects.filter(client_hash=client, created_at__gte=since)
        .order_by("-created_at")
        .values_list("created_at", flat=True)[:limit]
    )
    if len(recent) >= limit:
        oldest = recent[-1]
        wait = (oldest + timedelta(seconds=window) - timezone.now()).total_seconds()
        raise FlagThrottled(max(1, math.ceil(wait)))


def _cell_errors(cell_id: int | None) -> dict[str, str]:
    """Why a cell cannot be flagged: it does not exist, or it is retired from the pages."""
    if cell_id is None or not Cell.objects.filter(pk=cell_id).exists():
        return {"cell": "No such cell."}
    if not Cell.objects.on_pages().filter(pk=cell_id).exists():
        return {"cell": "This verdict is retired from the arena and can no longer be flagged."}
    return {}


# ---- the statements of a submission, written once per database vendor (raw SQL: the ORM has no
# FOR SHARE, no INSERT … SELECT … WHERE and no ON CONFLICT DO NOTHING … RETURNING)

PENDING_SQL = f"status = '{Status.PENDING.value}'"  # a literal: it names the partial unique index


@functools.cache
def _submit_sql(vendor: str) -> tuple[str, str, str]:
    """(select the cell's pending item, open one, insert the flag) for a database vendor (compiled
    on the current connection, which is of that vendor).

    Whether the cell may be flagged is ``Cell.objects.on_pages()``'s rule, compiled once here.
    """
    on_pages = Cell.objects.on_pages().filter(pk=-1).values("pk").order_by().query
    cell_sql, cell_params = on_pages.get_compiler(connection=connection).as_sql()
    if tuple(cell_params) != (-1,):  # the one parameter is the cell's id
        raise RuntimeError(f"unexpected parameters in the cell rule: {cell_params}")
    qn = connection.ops.quote_name
    items, flags = qn(ReviewItem._meta.db_table), qn(Flag._meta.db_table)
    # PostgreSQL: a share lock on the item, so that a moderator resolving it waits for this flag
    # (and sees it), while other clients' flags on the cell go in side by side; SQLite
    # transactions are serial.
    lock = " FOR SHARE" if vendor == "postgresql" else ""
    select_item = (
        f"SELECT id, public_note, version FROM {items}"
        f" WHERE cell_id = %s AND {PENDING_SQL} AND EXISTS ({cell_sql}){lock}"
    )
    open_item = (
        f"INSERT INTO {items} (cell_id, status, created_at, public_note, version)"
        f" SELECT %s, '{Status.PENDING.value}', %s, '', 1 WHERE EXISTS ({cell_sql})"
        f" ON CONFLICT (cell_id) WHERE {PENDING_SQL} DO NOTHING RETURNING id"
    )
    columns = ", ".join(qn(cast(str, f.column)) for f in _flag_fields())
    placeholders = ", ".join("%s" for _ in _flag_fields())
    # the rate limit: fewer than `limit` flags of this client in the window, counted on the index
    # (client_hash, created_at), reading at most `limit` of its entries
    insert_flag = (
        f"INSERT INTO {flags} ({columns}) SELECT {placeholders}"
        f" WHERE (SELECT COUNT(*) FROM (SELECT 1 FROM {flags}"
        f" WHERE client_hash = %s AND created_at >= %s LIMIT %s) AS recent) < %s"
        f" ON CONFLICT (item_id, client_hash) DO NOTHING RETURNING id"
    )
    return select_item, open_item, insert_flag


def _flag_fields() -> list[Field]:
    return [f for f in Flag._meta.concrete_fields if not f.primary_key]


def _pending_item(cursor: CursorWrapper, cell_id: int, now: datetime) -> ReviewItem:
    """The cell's pending review item, opened when there is none, share-locked (PostgreSQL).
    ValidationError when the cell cannot be flagged."""
    select_item, open_item, _ = _submit_sql(connection.vendor)
    created_at = Flag._meta.get_field("created_at").get_db_prep_save(now, connection)
    for _attempt in range(3):
        cursor.execute(select_item, [cell_id, cell_id])
        row = cursor.fetchone()
        if row is not None:
            return ReviewItem(
                pk=row[0],
                cell_id=cell_id,
                status=Status.PENDING,
                public_note=row[1],
                version=row[2],
            )
        cursor.execute(open_item, [cell_id, created_at, cell_id])
        row = cursor.fetchone()
        if row is not None:
            return ReviewItem(pk=row[0], cell_id=cell_id, status=Status.PENDING, created_at=now)
        errors = _cell_errors(cell_id)
        if errors:
            raise ValidationError(errors)
        # another client opened the cell's item meanwhile: the next SELECT sees it
    raise OperationalError("the cell's pending review item kept changing")


def _insert_flag(cursor: CursorWrapper, flag: Flag, client: str) -> int | None:
    """Insert the flag unless the client is over the rate limit or already has a flag in the
    item; its id, or None."""
    *_, insert_flag = _submit_sql(connection.vendor)
    limit, window = parse_rate(settings.FLAG_RATE)
    since = flag.created_at - timedelta(seconds=window)
    values = [f.get_db_prep_save(getattr(flag, f.attname), connection) for f in _flag_fields()]
    created_at = Flag._meta.get_field("created_at")
    since_value = created_at.get_db_prep_save(since, connection)
    cursor.execute(insert_flag, [*values, client, since_value, limit, limit])
    row = cursor.fetchone()
    return None if row is None else row[0]


def flag_submit(*, cell: Cell | int | None, data: FlagInput, client: str) -> Flag:
    """File a flag on a cell (a Cell or its id): validate, throttle, and group it into the cell's
    pending review item.

    ``client`` is the client's key (``arena.clients.client_key``). The rate limit and the "one
    pending flag per client per cell" rule are checked inside the insert's transaction, under a
    per-client lock (and the latter by a unique constraint too), so simultaneous requests cannot
    slip past them. Raises ValidationError (a message per field) or FlagThrottled; writes nothing
    then.

    A submission is a few statements: the client's lock (PostgreSQL), the cell's pending item
    (share-locked; opened with INSERT … ON CONFLICT DO NOTHING when there is none), and one
    INSERT of the flag that counts the client's recent flags and skips a second flag of the
    client in the item (ON CONFLICT DO NOTHING); why nothing was inserted is looked up only then.
    """
    cell_id = cell.pk if isinstance(cell, Cell) else cell
    errors = data.errors()
    if errors or cell_id is None:
        raise ValidationError({**_cell_errors(cell_id), **errors})
    now = timezone.now()
    flag = Flag(cell_id=cell_id, client_hash=client, created_at=now, **data.model_fields())
    for _attempt in range(3):
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                _lock_client(client)
                flag.item = _pending_item(cursor, cell_id, now)
                flag.pk = _insert_flag(cursor, flag, client)
                if flag.pk is None:
                    _throttle_check(client=client)
                    raise ValidationError(
                        {
                            "cell": "You have already flagged this verdict; your flag is pending review."
                        }
                    )
                flag._state.adding, flag._state.db = False, connection.alias
                return flag
        except (IntegrityError, OperationalError):
            # a token clash, or the database chose this request as a deadlock victim: the next
            # attempt starts afresh
            flag.pk = None
            continue
    raise ValidationError({"cell": "Could not file the flag right now; please try again."})


# ---------------------------------------------------------------- moderation


def _check_decision(moderator: User, decision: ModerationDecision) -> None:
    if not user_can_moderate(moderator):
        raise PermissionDenied(
            "Only superusers and members of the Moderators group may resolve flags."
        )
    errors = decision.errors()
    if errors:
        raise ValidationError(errors)


def _check_seen(item: ReviewItem, seen_flags: frozenset[int] | None) -> None:
    """A decision covers flags of this item: a list naming none of them, or another item's, is a
    mistake (or a forgery) that would record a decision nobody made."""
    if seen_flags is None:
        return
    own = set(Flag.objects.filter(item_id=item.pk).values_list("pk", flat=True))
    if not seen_flags or not seen_flags <= own:
        raise ValidationError(
            {"flags": "These flags are not (all) on this review item; reload it and decide again."}
        )


def _resolve(
    item: ReviewItem,
    *,
    status: Status,
    moderator: User,
    decision: ModerationDecision,
    change: CellChange | None = None,
) -> None:
    """Resolve the item once (a conditional UPDATE on its version). The decision covers the flags
    the moderator saw (``seen_flags``; all of them when None): flags filed after the moderator
    opened the item move to a new pending item, to be decided on their own."""
    version = item.version if decision.item_version is None else decision.item_version
    done = ReviewItem.objects.filter(pk=item.pk, status=Status.PENDING, version=version).update(
        status=status,
        resolved_at=timezone.now(),
        resolved_by=moderator,
        public_note=decision.note_text,
        change=change,
        version=F("version") + 1,
    )
    if not done:
        raise AlreadyResolved(
            "This flag was already resolved (or changed) by another moderator; nothing was changed."
        )
    if decision.seen_flags is None:
        return
    unseen = (
        Flag.objects.filter(item=item)
        .exclude(pk__in=decision.seen_flags)
        .order_by("created_at", "pk")
    )
    first = unseen.first()
    if first is not None:
        fresh = ReviewItem.objects.create(cell_id=item.cell_id, created_at=first.created_at)
        unseen.update(item=fresh)


def _flags_detail(decision: ModerationDecision) -> dict[str, list[int]]:
    return {} if decision.seen_flags is None else {"flags": sorted(decision.seen_flags)}


def review_item_uphold(
    *, item: ReviewItem, moderator: User, decision: ModerationDecision
) -> ReviewItem:
    """Uphold a review item: correct the cell (the moderator's values, else the flags' proposal),
    record the change publicly with the note, resolve the item once, and schedule the
    recomputation. Values left out are completed; values given must make a valid cell together
    (ValidationError per field otherwise). A decision on an item resolved or changed since it was
    read raises AlreadyResolved; on a cell edited since, EditConflict."""
    _check_decision(moderator, decision)
    note = decision.note_text
    with transaction.atomic():
        # the item first, then the cell: the order flag_submit takes them in (no deadlock)
        item = (
            ReviewItem.objects.select_for_update(of=("self",))
            .select_related("cell")
            .get(pk=item.pk)
        )
        if item.status != Status.PENDING:
            raise AlreadyResolved("This flag was already resolved; nothing was changed.")
        _check_seen(item, decision.seen_flags)
        start = review_item_proposal(item, decision.seen_flags) or CellValue.of(item.cell)
        value = decision.corrected(start)
        errors = value.errors()
        if errors:
            raise ValidationError(errors)
        # recorded even when the values stay: an upheld flag counts against the product's integrity
        change = cell_set_value(
            cell=item.cell,
            value=value,
            by=moderator,
            note=note,
            kind=CellChange.Kind.FLAG,
            record_unchanged=True,
            expected_version=decision.cell_version,
        )
        if change is None:  # record_unchanged promises a record; never upheld without one
            raise RuntimeError("cell_set_value recorded no change for an upheld flag")
        _resolve(item, status=Status.UPHELD, moderator=moderator, decision=decision, change=change)
        ModeratorAction.objects.create(
            item=item,
            moderator=moderator,
            action=ModeratorAction.Action.UPHOLD,
            note=note,
            detail={
                "old": [change.old_verdict, change.old_proof, change.old_quality],
                "new": [change.new_verdict, change.new_proof, change.new_quality],
                **_flags_detail(decision),
            },
            created_at=timezone.now(),
        )
    item.refresh_from_db()
    return item


def review_item_reject(
    *,
    item: ReviewItem,
    moderator: User,
    decision: ModerationDecision,
    duplicate: bool = False,
) -> ReviewItem:
    """Reject (or mark duplicate): the cell stays as it is (a ``correction`` is not read); the
    note is public."""
    _check_decision(moderator, decision)
    with transaction.atomic():
        _check_seen(item, decision.seen_flags)
        _resolve(
            item,
            status=Status.DUPLICATE if duplicate else Status.REJECTED,
            moderator=moderator,
            decision=decision,
        )
        ModeratorAction.objects.create(
            item=item,
            moderator=moderator,
            action=ModeratorAction.Action.DUPLICATE if duplicate else ModeratorAction.Action.REJECT,
            note=decision.note_text,
            detail=_flags_detail(decision),
            created_at=timezone.now(),
        )
    item.refresh_from_db()
    return item
