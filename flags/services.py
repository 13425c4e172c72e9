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
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import cast

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, OperationalError, connection, transaction
from django.db.backends.utils import CursorWrapper
from django.db.models import F
from django.utils import timezone

from arena.text import clean_text, parse_rate
from flags.inputs import FlagInput, ModerationDecision
from flags.models import Flag, ModeratorAction, ReviewItem, Status
from flags.selectors import review_item_proposal, user_can_moderate
from stories.models import Cell, CellChange
from stories.services import (
    cell_mark_rationale_predates,
    cell_set_value,
    cell_update_detail,
    evidence_add,
)
from stories.values import CellValue

# A flood of flags must not take every thread of a process from the pages (gunicorn's gthread
# workers serve both): at most FLAG_CONCURRENCY flag submissions run at once in a process, the
# others wait their turn. A waiting submission holds its thread, so this helps only with more
# threads than that; sync workers serve one request at a time anyway.
FLAG_SLOTS = threading.BoundedSemaphore(settings.FLAG_CONCURRENCY)


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


def _file(cursor: CursorWrapper, flag: Flag) -> None:
    """File the flag, or raise why not: ValidationError (the cell; already flagged) or
    FlagThrottled. Usually one statement; the others run only when that one inserts nothing."""
    sql = _submit_sql(connection.vendor)
    cell_id, client = flag.cell_id, flag.client_hash
    created_at = _CREATED_AT.get_db_prep_save(flag.created_at, connection)
    for _attempt in range(3):
        if _insert_flag(cursor, flag, sql):
            return
        cursor.execute(sql.pending_item, [client, cell_id, cell_id])
        item = cursor.fetchone()
        if item is None:  # open the cell's item, or learn why it cannot have one
            cursor.execute(sql.open_item, [cell_id, created_at, cell_id])
            if cursor.fetchone() is None:
                errors = _cell_errors(cell_id)
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


def flag_submit(*, cell: Cell | int | None, data: FlagInput, client: str) -> Flag:
    """File a flag on a cell (a Cell or its id): validate, throttle, and group it into the cell's
    pending review item.

    ``client`` is the client's key (``web.http.clients.client_key``). The rate limit and the "one
    pending flag per client per cell" rule are checked inside the insert's transaction, under a
    per-client lock (and the latter by a unique constraint too), so simultaneous requests cannot
    slip past them. Raises ValidationError (a message per field) or FlagThrottled; writes nothing
    then.

    A submission is usually two statements in a transaction: the client's lock (PostgreSQL) and
    one INSERT of the flag into the cell's pending item (share-locked) that counts the client's
    recent flags and skips a second flag of the client in the item (ON CONFLICT DO NOTHING). When
    it inserts nothing, the next statements tell why, or open the cell's item (INSERT … ON
    CONFLICT DO NOTHING on its partial unique index) and insert again.
    """
    cell_id = cell.pk if isinstance(cell, Cell) else cell
    errors = data.errors()
    if errors or cell_id is None:
        raise ValidationError({**_cell_errors(cell_id), **errors})
    flag = Flag(
        cell_id=cell_id, client_hash=client, created_at=timezone.now(), **data.model_fields()
    )
    for _attempt in range(3):
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                _lock_client(client)
                _file(cursor, flag)
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


RATIONALE_MAX = 5000  # a new rationale given with an uphold (the review page's field, the API's)


def _rationale_errors(rationale: str | None) -> dict[str, str]:
    if rationale is not None and len(clean_text(rationale).strip()) > RATIONALE_MAX:
        return {"rationale": f"Keep the rationale under {RATIONALE_MAX} characters."}
    return {}


# The source tag of a flag's source accepted as evidence (the evidence's ``source``)
ACCEPTED_SOURCE = "community"
EVIDENCE_QUOTE_MAX = 2000
NO_SOURCE = "No flag in this decision gives a source URL to accept as evidence."


def _quote_errors(quote: str | None) -> dict[str, str]:
    if quote is not None and len(quote) > EVIDENCE_QUOTE_MAX:
        return {"evidence_quote": f"Keep the quote under {EVIDENCE_QUOTE_MAX} characters."}
    return {}


def _accept_sources(item: ReviewItem, decision: ModerationDecision, quote: str | None) -> list[str]:
    """The flags' source URLs (of the flags the decision covers), each once, as new evidence of
    the cell: source ``community``, the moderator's ``quote`` or else the flag's explanation,
    checked on the day of the decision. Returns the URLs accepted; ValidationError when none of
    the flags gives one."""
    flags = Flag.objects.filter(item_id=item.pk).exclude(source_url="").order_by("created_at", "pk")
    if decision.seen_flags is not None:
        flags = flags.filter(pk__in=decision.seen_flags)
    accepted: dict[str, Flag] = {}
    for flag in flags:
        accepted.setdefault(flag.source_url, flag)
    if not accepted:
        raise ValidationError({"accept_source": NO_SOURCE})
    for url, flag in accepted.items():
        evidence_add(
            cell=item.cell, source=ACCEPTED_SOURCE, quote=quote or flag.explanation, url=url
        )
    return list(accepted)


def review_item_uphold(
    *,
    item: ReviewItem,
    moderator: User,
    decision: ModerationDecision,
    rationale: str | None = None,
    accept_source: bool = False,
    evidence_quote: str | None = None,
) -> ReviewItem:
    """Uphold a review item: correct the cell (the moderator's values, else the flags' proposal),
    record the change publicly with the note, resolve the item once, and schedule the
    recomputation. Values left out are completed; values given must make a valid cell together
    (ValidationError per field otherwise). A decision on an item resolved or changed since it was
    read raises AlreadyResolved; on a cell edited since, EditConflict.

    ``rationale``: the cell's new rationale, written with the correction (marked rewritten with
    it). Without one (None or blank) the old rationale stays, marked as written before the
    correction when the correction changed the verdict or the quality.

    ``accept_source``: the source URLs of the flags decided on become new evidence of the cell
    (source ``community``, quote ``evidence_quote`` or else the flag's explanation, checked on
    the day of the decision; see ``_accept_sources``). The decision itself checks the cell that
    day (its ``evidence_as_of``, stories/freshness.py)."""
    _check_decision(moderator, decision)
    rationale = clean_text(rationale or "").strip() or None
    evidence_quote = clean_text(evidence_quote or "").strip() or None
    errors = {**_rationale_errors(rationale), **_quote_errors(evidence_quote)}
    if errors:
        raise ValidationError(errors)
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
        replaced = item.cell.rationale  # kept in the audit log: the public record has no text
        if rationale is not None:
            cell_update_detail(cell=item.cell, rationale=rationale, correction=change)
        else:
            cell_mark_rationale_predates(cell=item.cell, correction=change)
        accepted = _accept_sources(item, decision, evidence_quote) if accept_source else []
        _resolve(item, status=Status.UPHELD, moderator=moderator, decision=decision, change=change)
        ModeratorAction.objects.create(
            item=item,
            moderator=moderator,
            action=ModeratorAction.Action.UPHOLD,
            note=note,
            detail={
                "old": [change.old_verdict, change.old_proof, change.old_quality],
                "new": [change.new_verdict, change.new_proof, change.new_quality],
                "rationale": (
                    {"old": replaced, "new": item.cell.rationale}
                    if rationale is not None
                    else "kept"
                ),
                **_flags_detail(decision),
                **({"accepted_sources": accepted} if accepted else {}),
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
