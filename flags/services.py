"""Filing a flag (the client's row lock serialises its flags, the item's orders flag and decision; a
race left is an IntegrityError, retried) and resolving a review item once (on its version)."""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, OperationalError, transaction
from django.db.models import Exists, F, OuterRef, Subquery
from django.utils import timezone

from arena.recompute import cell_content_changed
from core.moderators import user_can_moderate
from core.text import parse_rate
from flags.forms import DecisionForm, FlagForm
from flags.mailing import notices_flag_filed, notices_item_decided
from flags.models import Flag, FlagClient, ModeratorAction, ReviewItem, Status
from flags.selectors import review_item_proposal
from stories.models import Cell, CellChange
from stories.services import cell_correct
from stories.values import CellValue, Quote

ACCEPTED_SOURCE = "community"  # the evidence source of a flag's URL accepted by a moderator
NO_SOURCE = "No flag in this decision gives a source URL to accept as evidence."
ALREADY_FLAGGED = "You have already flagged this verdict; your flag is pending review."


class AlreadyResolved(Exception):
    pass


class FlagThrottled(Exception):
    """Too many flags from one client; ``retry_after`` seconds until the next is accepted."""

    def __init__(self, retry_after: int):
        self.retry_after = retry_after
        super().__init__(f"Too many flags from this client; try again in {retry_after} seconds.")


def client_lock(client: str, now: datetime) -> None:
    """Lock the client's row (an upsert) until the commit: its rate limit counted, its flag in."""
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
    if cell_id is None or not Cell.objects.filter(pk=cell_id).exists():
        return {"cell": "No such cell."}
    if not Cell.objects.on_pages().filter(pk=cell_id).exists():
        return {"cell": "This verdict is retired from the arena and can no longer be flagged."}
    return {}


def flag_file(flag: Flag) -> int:
    """Save the flag into its cell's pending item, opening one; the cell's arena, else
    ValidationError or FlagThrottled. The item stays locked until the flag is in; a new one
    opened by another client at once fails the INSERT."""
    limit, window = parse_rate(settings.FLAG_RATE)
    recent = Flag.objects.filter(
        client_hash=flag.client_hash, created_at__gte=flag.created_at - timedelta(seconds=window)
    )
    pending = ReviewItem.objects.filter(cell=OuterRef("pk"), status=Status.PENDING)
    found = (
        Cell.objects.on_pages()
        .filter(pk=flag.cell_id)
        .values_list(
            "story__arena_id",
            Subquery(recent.order_by("-created_at").values("created_at")[limit - 1 : limit]),
            Subquery(pending.order_by().values("pk")),  # (one at most: a unique constraint)
        )
        .order_by()
        .first()
    )
    if found is None:
        raise ValidationError(cell_flag_errors(flag.cell_id))
    # reached_at: when the client filed the oldest of its last FLAG_RATE flags
    arena_id, reached_at, item_id = found
    if reached_at is not None:
        wait = (reached_at + timedelta(seconds=window) - timezone.now()).total_seconds()
        raise FlagThrottled(max(1, math.ceil(wait)))
    item = None
    if item_id is not None:
        mine = Flag.objects.filter(item=OuterRef("pk"), client_hash=flag.client_hash)
        locked = ReviewItem.objects.select_for_update().filter(pk=item_id, status=Status.PENDING)
        item = locked.annotate(mine=Exists(mine)).first()
        if item is not None and item.mine:
            raise ValidationError({"cell": ALREADY_FLAGGED})
    # none, or resolved since the read: a new one
    flag.item = item or ReviewItem.objects.create(cell_id=flag.cell_id, created_at=flag.created_at)
    flag.save(force_insert=True)
    return arena_id


def flag_submit(*, form: FlagForm, client: str, cell: Cell | int | None = None) -> Flag:
    """File a flag (on ``cell``, else the form's) into its cell's pending review item, under the
    client's lock; ValidationError per field or FlagThrottled."""
    valid = form.is_valid()
    cell_id = cell.pk if isinstance(cell, Cell) else cell or form.cleaned_data.get("cell")
    if not valid or cell_id is None:
        errors = cell_flag_errors(cell_id) if valid or cell_id is not None else {}
        raise ValidationError({**errors, **form.errors.as_data()})
    fields = {k: v for k, v in form.cleaned_data.items() if k not in ("cell", "website")}
    now = timezone.now()
    for _attempt in range(3):
        flag = Flag(cell_id=cell_id, client_hash=client, created_at=now, **fields)
        try:
            with transaction.atomic():
                client_lock(client, now)
                arena_id = flag_file(flag)
                notices_flag_filed(flag)
                # the pending dispute is public; last, as the arena's row is locked until the commit
                cell_content_changed(cell_id=cell_id, arena_id=arena_id)
                return flag
        except (IntegrityError, OperationalError):
            # another client opened the cell's item, a token clash, or a deadlock victim: afresh
            continue
    raise ValidationError({"cell": "Could not file the flag right now; please try again."})


def _decision(someone: AbstractBaseUser | AnonymousUser, form: DecisionForm) -> dict[str, Any]:
    if not isinstance(someone, User) or not user_can_moderate(someone):
        raise PermissionDenied(
            "Only superusers and members of the Moderators group may resolve flags."
        )
    if not form.is_valid():
        raise ValidationError(form.errors.as_data())
    return {**form.cleaned_data, "moderator": someone}


def _check_seen(item: ReviewItem, seen_flags: frozenset[int] | None) -> None:
    """A list naming another item's flags would record a decision nobody made."""
    if seen_flags is None:
        return
    own = set(Flag.objects.filter(item_id=item.pk).values_list("pk", flat=True))
    if not seen_flags or not seen_flags <= own:
        raise ValidationError(
            {"flags": "These flags are not (all) on this review item; reload it and decide again."}
        )


def _resolve(
    item: ReviewItem,
    status: Status,
    data: dict[str, Any],
    detail: dict[str, Any],
    change: CellChange | None = None,
) -> None:
    """Resolve the item once, log it, and move flags filed since it was read to a new item."""
    version = data["version"] or item.version
    done = ReviewItem.objects.filter(pk=item.pk, status=Status.PENDING, version=version).update(
        status=status,
        resolved_at=timezone.now(),
        resolved_by=data["moderator"],
        public_note=data["note"],
        change=change,
        version=F("version") + 1,
    )
    if not done:
        raise AlreadyResolved(
            "This flag was already resolved (or changed) by another moderator; nothing was changed."
        )
    cell_content_changed(cell_id=item.cell_id)  # the dispute is public
    if (seen := data["flags"]) is not None:
        detail["flags"] = sorted(seen)
        unseen = Flag.objects.filter(item=item).exclude(pk__in=seen)
        if first := unseen.order_by("created_at", "pk").first():
            unseen.update(
                item=ReviewItem.objects.create(cell_id=item.cell_id, created_at=first.created_at)
            )
    action = {Status.UPHELD: "uphold", Status.REJECTED: "reject"}.get(status, "duplicate")
    ModeratorAction.objects.create(
        item=item,
        moderator=data["moderator"],
        action=action,
        note=data["note"],
        detail=detail,
        created_at=timezone.now(),
    )
    notices_item_decided(item)


def _accepted_quotes(item: ReviewItem, data: dict[str, Any]) -> list[Quote]:
    """Each source URL of the flags decided on, once, as new evidence of the cell."""
    flags = Flag.objects.filter(item_id=item.pk).exclude(source_url="").order_by("created_at", "pk")
    if data["flags"] is not None:
        flags = flags.filter(pk__in=data["flags"])
    accepted: dict[str, Flag] = {}
    for flag in flags:
        accepted.setdefault(flag.source_url, flag)
    if not accepted:
        raise ValidationError({"accept_source": NO_SOURCE})
    quote = data.get("evidence_quote")
    return [
        Quote(source=ACCEPTED_SOURCE, quote=quote or flag.explanation, url=url)
        for url, flag in accepted.items()
    ]


def _corrected(start: CellValue, correction: dict[str, Any]) -> CellValue:
    """The moderator's values (a contradiction kept, to report), the rest from ``start``."""
    if not correction:
        return start
    value = CellValue(
        correction.get("verdict", start.verdict), correction.get("proof"), correction.get("quality")
    )
    return value.completed_from(start, given=set(correction))


def review_item_uphold(
    *, item: ReviewItem, moderator: AbstractBaseUser | AnonymousUser, form: DecisionForm
) -> ReviewItem:
    """Correct the cell (``cell_correct``, public) and resolve the item: AlreadyResolved if stale,
    EditConflict if edited since. No rationale keeps the old; ``accept_source`` adds the sources."""
    data = _decision(moderator, form)
    with transaction.atomic():
        # the item before the arena's row: the order flag_submit takes them in
        item = (
            ReviewItem.objects.select_for_update(of=("self",))
            .select_related("cell")
            .get(pk=item.pk)
        )
        if item.status != Status.PENDING:
            raise AlreadyResolved("This flag was already resolved; nothing was changed.")
        _check_seen(item, data["flags"])
        start = review_item_proposal(item, data["flags"]) or CellValue.of(item.cell)
        value = _corrected(start, data["correction"])
        if errors := value.errors():
            raise ValidationError(errors)
        quotes = _accepted_quotes(item, data) if data.get("accept_source") else []
        replaced = item.cell.rationale
        # recorded even when the values stay: the public record lists every upheld flag
        change = cell_correct(
            cell=item.cell,
            value=value,
            by=data["moderator"],
            note=data["note"],
            kind=CellChange.Kind.FLAG,
            expected_version=data["cell_version"],
            rationale=data["rationale"],
            quotes=quotes,
            record_unchanged=True,
        )
        assert change is not None  # record_unchanged promises a record
        detail = {  # the audit log's account (the public record has no text)
            "old": [change.old_verdict, change.old_proof, change.old_quality],
            "new": [change.new_verdict, change.new_proof, change.new_quality],
            "rationale": "kept"
            if data["rationale"] is None
            else {"old": replaced, "new": item.cell.rationale},
            **({"accepted_sources": [q.url for q in quotes]} if quotes else {}),
        }
        _resolve(item, Status.UPHELD, data, detail, change=change)
    item.refresh_from_db()
    return item


def review_item_reject(
    *,
    item: ReviewItem,
    moderator: AbstractBaseUser | AnonymousUser,
    form: DecisionForm,
    duplicate: bool = False,
) -> ReviewItem:
    """Reject (or mark duplicate): the cell stays as it is; the note is public."""
    data = _decision(moderator, form)
    with transaction.atomic():
        _check_seen(item, data["flags"])
        _resolve(item, Status.DUPLICATE if duplicate else Status.REJECTED, data, {})
    item.refresh_from_db()
    return item
