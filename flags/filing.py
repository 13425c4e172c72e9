"""Filing a flag inside ``flag_submit``'s transaction: the client's lock serialises its flags (the
rate limit), the item's row lock orders a flag and a decision, and the unique constraints turn any
race left into an IntegrityError, on which ``flag_submit`` starts again."""

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
    """Lock the client's row (an upsert) until the commit: its rate limit is counted and its flag
    inserted as one step."""
    FlagClient.objects.bulk_create(
        [FlagClient(client_hash=client, last_seen=now)],
        update_conflicts=True,
        unique_fields=["client_hash"],
        update_fields=["last_seen"],
    )


def flag_clients_prune(now: datetime | None = None) -> int:
    """Forget the clients with no flag within the rate window; how many."""
    window = parse_rate(settings.FLAG_RATE)[1]
    cutoff = (now or timezone.now()) - timedelta(seconds=window)
    return FlagClient.objects.filter(last_seen__lt=cutoff).delete()[0]


def cell_flag_errors(cell_id: int | None) -> dict[str, str]:
    """Why a cell cannot be flagged."""
    if cell_id is None or not Cell.objects.filter(pk=cell_id).exists():
        return {"cell": "No such cell."}
    if not Cell.objects.on_pages().filter(pk=cell_id).exists():
        return {"cell": "This verdict is retired from the arena and can no longer be flagged."}
    return {}


def _limit_reached_at(client: str, now: datetime) -> Subquery:
    """When the client filed the oldest of its last FLAG_RATE flags in the window; NULL under it."""
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
    """The cell's pending item, locked until the flag is in (a moderator resolving it waits for the
    flag), with whether this client has a flag in it and its rate limit."""
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
    """A new pending item for the cell (a race with another client fails the INSERT)."""
    reached = list(
        Cell.objects.on_pages()
        .filter(pk=flag.cell_id)
        .order_by()
        .values_list(_limit_reached_at(flag.client_hash, flag.created_at), flat=True)
    )
    if not reached:
        raise ValidationError(cell_flag_errors(flag.cell_id))
    _check_throttle(reached[0])
    return ReviewItem.objects.create(cell_id=flag.cell_id, created_at=flag.created_at)


def flag_file(flag: Flag) -> None:
    """Save the flag into its cell's pending item, opening one; ValidationError or FlagThrottled."""
    item = _pending_item(flag)
    if item is None:
        item = _open_item(flag)
    else:
        _check_throttle(item.limit_reached_at)  # type: ignore[attr-defined]
        if item.mine:  # type: ignore[attr-defined]
            raise ValidationError({"cell": ALREADY_FLAGGED})
    flag.item = item
    flag.save(force_insert=True)
    # the pending dispute is public
    cell_content_changed(cell_id=flag.cell_id)
