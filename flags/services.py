"""Writes of the flags app: submitting a flag and resolving a review item, exactly once.

Flags on one cell are grouped into one pending ReviewItem. Resolving uses a version check (a
conditional UPDATE), so two moderators at once, or a second attempt, change nothing (SQLite ignores
``select_for_update``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import EmailValidator, URLValidator
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from flags.models import Flag, ModeratorAction, Reason, ReviewItem, Status
from stories.models import EVIDENCED, Cell, CellChange, Verdict
from stories.services import cell_check_values, cell_set_verdict

EXPLANATION_MIN, EXPLANATION_MAX = 20, 2000
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
    if reason not in Reason.values:
        errors["reason"] = f"Choose a reason: {', '.join(Reason.values)}."
    text = (explanation or "").strip()
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
    if proposed_quality is not None and not 0 <= proposed_quality <= 10:
        errors["proposed_quality"] = "Quality is from 0 to 10."
    if proposed_verdict == "n/a" and proposed_quality is not None:
        errors["proposed_quality"] = "An n/a verdict has no quality."
    if proposed_verdict == "none" and proposed_quality not in (None, 0):
        errors["proposed_quality"] = "A none verdict (no evidence found) has quality 0."
    if source_url:
        try:
            URLValidator(schemes=["http", "https"])(source_url)
        except ValidationError:
            errors["source_url"] = "Enter a full http(s) address, or leave it empty."
        if len(source_url) > 500:
            errors["source_url"] = "Keep the address under 500 characters."
    if email:
        try:
            EmailValidator()(email)
        except ValidationError:
            errors["email"] = "Enter a valid email address, or leave it empty."
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

    ``client`` is the salted hash of the client's address (``client_hash``). Raises ValidationError
    (a message per field) or FlagThrottled; writes nothing then.
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
    flag_throttle_check(client=client)
    if Flag.objects.filter(cell=cell, client_hash=client, item__status=Status.PENDING).exists():
        raise ValidationError(
            {"cell": "You have already flagged this verdict; your flag is pending review."}
        )
    now = timezone.now()
    for _attempt in range(3):
        try:
            with transaction.atomic():
                item = ReviewItem.objects.filter(cell=cell, status=Status.PENDING).first()
                if item is None:
                    item = ReviewItem.objects.create(cell=cell, created_at=now)
                return Flag.objects.create(
                    item=item,
                    cell=cell,
                    reason=reason,
                    explanation=explanation.strip(),
                    proposed_verdict=proposed_verdict or "",
                    proposed_quality=proposed_quality,
                    source_url=source_url,
                    email=email,
                    client_hash=client,
                    created_at=now,
                )
        except IntegrityError:  # another request opened the cell's review item meanwhile
            continue
    raise ValidationError({"cell": "Could not file the flag right now; please try again."})


# ---------------------------------------------------------------- moderation


def can_moderate(user) -> bool:
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return False
    return user.is_superuser or user.groups.filter(name=MODERATORS_GROUP).exists()


@dataclass(frozen=True)
class Correction:
    verdict: str
    proof: str | None
    quality: int | None


def proposed_correction(item: ReviewItem) -> Correction | None:
    """The newest flag's proposal, completed from the cell; None when no flag proposes anything."""
    flags = [f for f in item.flags.all() if f.proposed_verdict or f.proposed_quality is not None]
    if not flags:
        return None
    newest = max(flags, key=lambda f: (f.created_at, f.pk))
    return complete_correction(
        item.cell, newest.proposed_verdict or None, None, newest.proposed_quality
    )


def complete_correction(
    cell: Cell, verdict: str | None, proof: str | None, quality: int | None
) -> Correction:
    """Fill what a proposal leaves out from the current cell so the result is a valid cell."""
    verdict = verdict or cell.verdict
    if verdict == "n/a":
        return Correction("n/a", None, None)
    if verdict == "none":
        return Correction("none", None, 0)
    if proof is None:
        proof = cell.proof if cell.verdict in EVIDENCED and cell.proof else "claimed"
    if quality is None:
        quality = cell.quality if cell.quality is not None else 0
    return Correction(verdict, proof, quality)


def _resolve(
    item: ReviewItem,
    *,
    status: str,
    moderator,
    note: str,
    expected_version: int | None,
    change=None,
):
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


def _check_moderator(moderator) -> None:
    if not can_moderate(moderator):
        raise PermissionError(
            "Only superusers and members of the Moderators group may resolve flags."
        )


def flag_uphold(
    *,
    item: ReviewItem,
    moderator,
    note: str,
    verdict: str | None = None,
    proof: str | None = None,
    quality: int | None = None,
    expected_version: int | None = None,
) -> ReviewItem:
    """Uphold: correct the cell (the moderator's values, else the flags' proposal), record the change
    publicly with the note, resolve the item once, and schedule the recomputation."""
    _check_moderator(moderator)
    with transaction.atomic():
        item = ReviewItem.objects.select_related("cell").get(pk=item.pk)
        if item.status != Status.PENDING:
            raise AlreadyResolved("This flag was already resolved; nothing was changed.")
        cell = item.cell
        if verdict is None and proof is None and quality is None:
            correction = proposed_correction(item) or complete_correction(cell, None, None, None)
        else:
            correction = complete_correction(cell, verdict, proof, quality)
        errors = cell_check_values(
            verdict=correction.verdict, proof=correction.proof, quality=correction.quality
        )
        if errors:
            raise ValidationError(errors)
        # recorded even when the values stay: an upheld flag counts against the product's integrity
        change = cell_set_verdict(
            cell=cell,
            verdict=correction.verdict,
            proof=correction.proof,
            quality=correction.quality,
            by=moderator,
            note=note,
            kind=CellChange.Kind.FLAG,
            record_unchanged=True,
        )
        _resolve(
            item,
            status=Status.UPHELD,
            moderator=moderator,
            note=note,
            expected_version=expected_version,
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
) -> ReviewItem:
    """Reject (or mark duplicate): the cell stays as it is; the note is public."""
    _check_moderator(moderator)
    with transaction.atomic():
        _resolve(
            item,
            status=Status.DUPLICATE if duplicate else Status.REJECTED,
            moderator=moderator,
            note=note,
            expected_version=expected_version,
        )
        ModeratorAction.objects.create(
            item=item,
            moderator=moderator,
            action=ModeratorAction.Action.DUPLICATE if duplicate else ModeratorAction.Action.REJECT,
            note=note,
            created_at=timezone.now(),
        )
    item.refresh_from_db()
    return item
