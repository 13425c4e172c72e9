"""Writes of the flags app: submitting a flag and resolving a review item, exactly once.

Flags on one cell are grouped into one pending ReviewItem. Resolving uses a version check (a
conditional UPDATE), so two moderators at once, or a second attempt, change nothing (SQLite ignores
``select_for_update``).
"""

from __future__ import annotations

import math
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.validators import EmailValidator, URLValidator
from django.db import IntegrityError, OperationalError, connection, transaction
from django.db.models import F
from django.utils import timezone

from arena.text import clean_text
from flags.models import Flag, ModeratorAction, Reason, ReviewItem, Status
from stories.models import Cell, CellChange, Verdict
from stories.services import cell_set_verdict
from stories.values import CellValue

EXPLANATION_MIN, EXPLANATION_MAX = 20, 2000
EMAIL_MAX = Flag._meta.get_field("email").max_length
SOURCE_URL_MAX = Flag._meta.get_field("source_url").max_length
NOTE_MAX = 2000
MODERATORS_GROUP = "Moderators"


class FlagThrottled(Exception):
    """Too many flags from one client; ``retry_after`` seconds until the next is accepted."""

    def __init__(self, retry_after: int):
        self.retry_after = retry_after
        super().__init__(f"Too many flags from this client; try again in {retry_after} seconds.")


class AlreadyResolved(Exception):
    """The review item was resolved by someone else (or by an earlier attempt)."""


def flag_rate() -> tuple[int, int]:
    """FLAG_RATE like "10/hour" → (10, 3600)."""
    count, _, period = settings.FLAG_RATE.partition("/")
    seconds = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}[period.strip()]
    return int(count), seconds


def _lock_client(client: str) -> None:
    """Serialise one client's flag submissions until the transaction ends, so the rate limit and
    the one-pending-flag rule are checked and the flag inserted as one step.

    PostgreSQL: a transaction-scoped advisory lock on the client key. SQLite: every transaction
    already begins IMMEDIATE (settings), which takes the database's write lock.
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [client])


def flag_throttle_check(*, client: str) -> None:
    """Raise FlagThrottled when this client already filed FLAG_RATE flags in the window."""
    limit, window = flag_rate()
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


def flag_check(
    *,
    cell: Cell | None,
    reason: str,
    explanation: str,
    proposed_verdict: str | None,
    proposed_quality: int | None,
    source_url: str,
    email: str,
) -> dict[str, str]:
    """Every rule on a flag's fields, as one message per field."""
    errors: dict[str, str] = {}
    if cell is None:
        errors["cell"] = "No such cell."
    elif cell.story.retired_at or cell.product.retired_at:
        errors["cell"] = "This verdict is retired from the arena and can no longer be flagged."
    if reason not in Reason.values:
        errors["reason"] = f"Choose a reason: {', '.join(Reason.values)}."
    text = clean_text(explanation or "").strip()
    if len(text) < EXPLANATION_MIN:
        errors["explanation"] = (
            f"Explain what is wrong in at least {EXPLANATION_MIN} characters (you wrote {len(text)})."
        )
    elif len(text) > EXPLANATION_MAX:
        errors["explanation"] = (
            f"Keep the explanation under {EXPLANATION_MAX} characters (you wrote {len(text)})."
        )
    if proposed_verdict and proposed_verdict not in Verdict.values:
        errors["proposed_verdict"] = f"Unknown verdict; one of {', '.join(Verdict.values)}."
    if proposed_quality is not None and (
        isinstance(proposed_quality, bool) or not 0 <= proposed_quality <= 10
    ):
        errors["proposed_quality"] = "Quality is from 0 to 10."
    elif proposed_verdict == Verdict.NA and proposed_quality is not None:
        errors["proposed_quality"] = "An n/a verdict has no quality."
    elif proposed_verdict == Verdict.NONE and proposed_quality not in (None, 0):
        errors["proposed_quality"] = "A none verdict (no evidence found) has quality 0."
    if source_url:
        if len(source_url) > SOURCE_URL_MAX:
            errors["source_url"] = f"Keep the address under {SOURCE_URL_MAX} characters."
        else:
            try:
                URLValidator(schemes=["http", "https"])(source_url)
            except ValidationError:
                errors["source_url"] = "Enter a full http(s) address, or leave it empty."
    if email:
        try:
            EmailValidator()(email)
        except ValidationError:
            errors["email"] = "Enter a valid email address, or leave it empty."
        if len(email) > EMAIL_MAX:
            errors["email"] = f"Keep the email address under {EMAIL_MAX} characters."
    return errors


def flag_submit(
    *,
    cell: Cell | None,
    reason: str,
    explanation: str,
    client: str,
    proposed_verdict: str | None = None,
    proposed_quality: int | None = None,
    source_url: str = "",
    email: str = "",
) -> Flag:
    """File a flag on a cell: validate, throttle, and group it into the cell's pending review item.

    ``client`` is the client's key (``arena.clients.client_key``). The rate limit and the "one
    pending flag per client per cell" rule are checked inside the insert's transaction, under a
    per-client lock (and the latter by a unique constraint too), so simultaneous requests cannot
    slip past them. Raises ValidationError (a message per field) or FlagThrottled; writes nothing
    then.
    """
    errors = flag_check(
        cell=cell,
        reason=reason,
        explanation=explanation,
        proposed_verdict=proposed_verdict,
        proposed_quality=proposed_quality,
        source_url=source_url,
        email=email,
    )
    if errors:
        raise ValidationError(errors)
    already = ValidationError(
        {"cell": "You have already flagged this verdict; your flag is pending review."}
    )
    for _attempt in range(3):
        try:
            with transaction.atomic():
                _lock_client(client)
                flag_throttle_check(client=client)
                if Flag.objects.filter(
                    cell=cell, client_hash=client, item__status=Status.PENDING
                ).exists():
                    raise already
                now = timezone.now()
                # locked: a moderator resolving this item meanwhile waits for the flag to be in
                # (and moves it to a new item if it did not see it), or this request waits for the
                # decision and opens a new item (PostgreSQL; SQLite transactions are serial)
                item = (
                    ReviewItem.objects.select_for_update()
                    .filter(cell=cell, status=Status.PENDING)
                    .first()
                )
                if item is None:
                    item = ReviewItem.objects.create(cell=cell, created_at=now)
                return Flag.objects.create(
                    item=item,
                    cell=cell,
                    reason=reason,
                    explanation=clean_text(explanation).strip(),
                    proposed_verdict=proposed_verdict or "",
                    proposed_quality=proposed_quality,
                    source_url=source_url,
                    email=email,
                    client_hash=client,
                    created_at=now,
                )
        except (IntegrityError, OperationalError):
            # another client opened the cell's review item meanwhile, or (the constraint) this
            # client's own flag got in first, or the database chose this request as a deadlock
            # victim: the next attempt sees which
            continue
    raise ValidationError({"cell": "Could not file the flag right now; please try again."})


# ---------------------------------------------------------------- moderation


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET = _Unset()  # a value the moderator did not give (None is "no proof" / "no quality")


def can_moderate(user) -> bool:
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return False
    return user.is_superuser or user.groups.filter(name=MODERATORS_GROUP).exists()


def proposed_correction(item: ReviewItem, seen_flags: set[int] | None = None) -> CellValue | None:
    """The newest flag's proposal (among ``seen_flags`` when given: a decision applies only what
    the moderator read), completed from the cell; None when no flag proposes anything."""
    flags = [
        f
        for f in item.flags.all()
        if (f.proposed_verdict or f.proposed_quality is not None)
        and (seen_flags is None or f.pk in seen_flags)
    ]
    if not flags:
        return None
    newest = max(flags, key=lambda f: (f.created_at, f.pk))
    given = {"verdict"} if newest.proposed_verdict else set()
    if newest.proposed_quality is not None:
        given.add("quality")
    proposal = CellValue(newest.proposed_verdict, None, newest.proposed_quality)
    return proposal.completed_from(CellValue.of(item.cell), given=given)


def uphold_values(
    item: ReviewItem, *, verdict=UNSET, proof=UNSET, quality=UNSET, seen_flags=None
) -> CellValue:
    """What upholding writes: the moderator's values where given (kept as given, so a contradiction
    is reported rather than rewritten), the rest completed from the flags' proposal or the cell."""
    given = {
        name
        for name, value in (("verdict", verdict), ("proof", proof), ("quality", quality))
        if value is not UNSET
    }
    start = proposed_correction(item, seen_flags) or CellValue.of(item.cell)
    if not given:
        return start
    moderator = CellValue(
        verdict if verdict is not UNSET else start.verdict,
        proof if proof is not UNSET else None,
        quality if quality is not UNSET else None,
    )
    return moderator.completed_from(start, given=given)


def _check_note(note: str) -> str:
    note = clean_text(note or "").strip()
    if not note:
        raise ValidationError({"note": "Write a public note: it is shown with the decision."})
    if len(note) > NOTE_MAX:
        raise ValidationError({"note": f"Keep the note under {NOTE_MAX} characters."})
    return note


def _check_seen(item: ReviewItem, seen_flags: set[int] | None) -> None:
    """A decision covers flags of this item: a list naming none of them, or another item's, is a
    mistake (or a forgery) that would record a decision nobody made."""
    if seen_flags is None:
        return
    own = set(Flag.objects.filter(item_id=item.pk).values_list("pk", flat=True))
    if not seen_flags or not seen_flags <= own:
        raise ValidationError(
            {"flags": "These flags are not (all) on this review item; reload it and decide again."}
        )


def _check_moderator(moderator) -> None:
    if not can_moderate(moderator):
        raise PermissionDenied(
            "Only superusers and members of the Moderators group may resolve flags."
        )


def _resolve(
    item: ReviewItem,
    *,
    status: str,
    moderator,
    note: str,
    expected_version: int | None,
    seen_flags: set[int] | None,
    change=None,
) -> None:
    """Resolve the item once (a conditional UPDATE on its version). The decision covers the flags
    the moderator saw (``seen_flags``; all of them when None): flags filed after the moderator
    opened the item move to a new pending item, to be decided on their own."""
    version = item.version if expected_version is None else expected_version
    done = ReviewItem.objects.filter(pk=item.pk, status=Status.PENDING, version=version).update(
        status=status,
        resolved_at=timezone.now(),
        resolved_by=moderator,
        public_note=note,
        change=change,
        version=F("version") + 1,
    )
    if not done:
        raise AlreadyResolved(
            "This flag was already resolved (or changed) by another moderator; nothing was changed."
        )
    if seen_flags is None:
        return
    unseen = Flag.objects.filter(item=item).exclude(pk__in=seen_flags).order_by("created_at", "pk")
    first = unseen.first()
    if first is not None:
        fresh = ReviewItem.objects.create(cell_id=item.cell_id, created_at=first.created_at)
        unseen.update(item=fresh)


def flag_uphold(
    *,
    item: ReviewItem,
    moderator,
    note: str,
    verdict=UNSET,
    proof=UNSET,
    quality=UNSET,
    expected_version: int | None = None,
    seen_flags: set[int] | None = None,
    expected_cell_version: int | None = None,
) -> ReviewItem:
    """Uphold a review item: correct the cell (the moderator's values, else the flags' proposal),
    record the change publicly with the note, resolve the item once, and schedule the
    recomputation. Values left out are completed; values given must make a valid cell together
    (ValidationError per field otherwise). ``expected_version``: the item's version as read;
    ``seen_flags``: the flags the decision covers (see ``_resolve``); ``expected_cell_version``: the
    cell's version as read (an edit of the cell meanwhile raises EditConflict)."""
    _check_moderator(moderator)
    note = _check_note(note)
    with transaction.atomic():
        # the item first, then the cell: the order flag_submit takes them in (no deadlock)
        item = (
            ReviewItem.objects.select_for_update(of=("self",))
            .select_related("cell")
            .get(pk=item.pk)
        )
        if item.status != Status.PENDING:
            raise AlreadyResolved("This flag was already resolved; nothing was changed.")
        _check_seen(item, seen_flags)
        values = uphold_values(
            item, verdict=verdict, proof=proof, quality=quality, seen_flags=seen_flags
        )
        errors = values.errors()
        if errors:
            raise ValidationError(errors)
        # recorded even when the values stay: an upheld flag counts against the product's integrity
        change = cell_set_verdict(
            cell=item.cell,
            verdict=values.verdict,
            proof=values.proof,
            quality=values.quality,
            by=moderator,
            note=note,
            kind=CellChange.Kind.FLAG,
            record_unchanged=True,
            expected_version=expected_cell_version,
        )
        _resolve(
            item,
            status=Status.UPHELD,
            moderator=moderator,
            note=note,
            expected_version=expected_version,
            seen_flags=seen_flags,
            change=change,
        )
        ModeratorAction.objects.create(
            item=item,
            moderator=moderator,
            action=ModeratorAction.Action.UPHOLD,
            note=note,
            detail={
                "old": [change.old_verdict, change.old_proof, change.old_quality],
                "new": [change.new_verdict, change.new_proof, change.new_quality],
                **({"flags": sorted(seen_flags)} if seen_flags is not None else {}),
            },
            created_at=timezone.now(),
        )
    item.refresh_from_db()
    return item


def flag_reject(
    *,
    item: ReviewItem,
    moderator,
    note: str,
    expected_version: int | None = None,
    duplicate: bool = False,
    seen_flags: set[int] | None = None,
) -> ReviewItem:
    """Reject (or mark duplicate): the cell stays as it is; the note is public."""
    _check_moderator(moderator)
    note = _check_note(note)
    with transaction.atomic():
        _check_seen(item, seen_flags)
        _resolve(
            item,
            status=Status.DUPLICATE if duplicate else Status.REJECTED,
            moderator=moderator,
            note=note,
            expected_version=expected_version,
            seen_flags=seen_flags,
        )
        ModeratorAction.objects.create(
            item=item,
            moderator=moderator,
            action=ModeratorAction.Action.DUPLICATE if duplicate else ModeratorAction.Action.REJECT,
            note=note,
            detail={"flags": sorted(seen_flags)} if seen_flags is not None else {},
            created_at=timezone.now(),
        )
    item.refresh_from_db()
    return item
