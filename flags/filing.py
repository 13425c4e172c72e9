"""How a flag is filed, inside ``flags.services.flag_submit``'s transaction: the per-client lock,
the rate limit, the cell's pending review item (locked), the flag.

The rules hold under concurrency: the client's lock serialises one client's submissions (the rate
limit), the item's row lock orders a flag and a moderator's decision on it, and the unique
constraints (one pending item per cell, one flag per client per item) turn any race left into an
``IntegrityError``, on which ``flag_submit`` starts the transaction again.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db.models import Exists, OuterRef, QuerySet, Subquery
from django.utils import timezone

from arena.recompute import cell_content_changed
from core.text import parse_rate
from flags.models import Flag, FlagClient, ReviewItem, Status
from stories.models import Cell

ALREADY_FLAGGED = "You have already flagged this verdict; your flag is pending review."


class FlagThrottled(Exception):
    """Too many flags from one client; ``retry_after`` seconds until the next is accepted."""

    def __init__(self, retry_after: int):
        self.retry_after = retry_after
        super().__init__(f"Too many flags from this client; try again in {retry_after} seconds.")


def client_lock(client: str, now: datetime) -> None:
    """Serialise one client's flag submissions until the transaction ends, so that the rate limit
    is counted and the flag inserted as one step: an upsert of the client's row, which holds the
    row's lock until the commit (on SQLite every transaction already holds the write lock)."""
    FlagClient.objects.bulk_create(
        [FlagClient(client_hash=client, last_seen=now)],
        update_conflicts=True,
        unique_fields=["client_hash"],
        update_fields=["last_seen"],
    )


def flag_clients_prune(now: datetime | None = None) -> int:
    """Forget the clients with no flag within the rate window (their rows lock nothing the rate
    limit still counts); how many were forgotten."""
    window = parse_rate(settings.FLAG_RATE)[1]
    cutoff = (now or timezone.now()) - timedelta(seconds=window)
    return FlagClient.objects.filter(last_seen__lt=cutoff).delete()[0]


def cell_flag_errors(cell_id: int | None) -> dict[str, str]:
    """Why a cell cannot be flagged: it does not exist, or it is retired from the pages."""
    if cell_id is None or not Cell.objects.filter(pk=cell_id).exists():
        return {"cell": "No such cell."}
    if not Cell.objects.on_pages().filter(pk=cell_id).exists():
        return {"cell": "This verdict is retired from the arena and can no longer be flagged."}
    return {}


def _limit_reached_at(client: str, now: datetime) -> Subquery:
    """When the client filed the oldest of its last FLAG_RATE flags in the window: NULL while it
    is under the limit (read on the index (client_hash, created_at), at most `limit` entries)."""
    limit, window = parse_rate(settings.FLAG_RATE)
    recent = Flag.objects.filter(
        client_hash=client, created_at__gte=now - timedelta(seconds=window)
    )
    return Subquery(recent.order_by("-created_at").values("created_at")[limit - 1 : limit])


def _check_throttle(reached_at: datetime | None) -> None:
    if reached_at is not None:
        window = parse_rate(settings.FLAG_RATE)[1]
        wait = (reached_at + timedelta(seconds=window) - timezone.now()).total_seconds()
        raise FlagThrottled(max(1, math.ceil(wait)))


def _pending_item(flag: Flag) -> ReviewItem | None:
    """The cell's pending item, locked until the flag is in, so that a moderator resolving it
    waits for the flag (and sees it) or, resolving first, leaves no pending item to join; with
    whether this client has a flag in it and its rate limit. None: no item, or the cell is off
    the pages."""
    items: QuerySet[ReviewItem] = ReviewItem.objects.select_for_update().filter(
        cell_id=flag.cell_id,
        status=Status.PENDING,
        cell__in=Cell.objects.on_pages().values("pk"),
    )
    mine = Flag.objects.filter(item=OuterRef("pk"), client_hash=flag.client_hash)
    return (
        items.annotate(
            mine=Exists(mine), limit_reached_at=_limit_reached_at(flag.client_hash, flag.created_at)
        )
        .order_by()
        .first()
    )


def _open_item(flag: Flag) -> ReviewItem:
    """A new pending item for the cell, or ValidationError (the cell) or FlagThrottled. Another
    client opening one at the same time makes this INSERT fail (the one pending item per cell)."""
    reached = list(
        Cell.objects.on_pages()
        .filter(pk=flag.cell_id)
        .order_by()  # one row: the cells' default order would only join the arena to sort it
        .values_list(_limit_reached_at(flag.client_hash, flag.created_at), flat=True)
    )
    if not reached:
        raise ValidationError(cell_flag_errors(flag.cell_id))
    _check_throttle(reached[0])
    return ReviewItem.objects.create(cell_id=flag.cell_id, created_at=flag.created_at)


def flag_file(flag: Flag) -> None:
    """File the flag (unsaved) into its cell's pending item, opening one when there is none, or
    raise why not: ValidationError (the cell; already flagged) or FlagThrottled. Runs inside the
    caller's transaction, after ``client_lock``."""
    item = _pending_item(flag)
    if item is None:
        item = _open_item(flag)
    else:
        _check_throttle(item.limit_reached_at)  # type: ignore[attr-defined]
        if item.mine:  # type: ignore[attr-defined]
            raise ValidationError({"cell": ALREADY_FLAGGED})
    flag.item = item
    flag.save(force_insert=True)
    # the pending dispute is public (the cell's page, the arena's disputes)
    cell_content_changed(cell_id=flag.cell_id)
