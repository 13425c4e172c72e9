"""Writes of the flags app: submitting a flag and resolving a review item, exactly once.

Each takes one input value from ``flags.inputs`` (``FlagInput`` for a visitor's flag,
``ModerationDecision`` for a moderator's decision), which the form, the API serializers and the
admin build; the rules on those values are theirs, the rules that need the database are here.
Flags on one cell are grouped into one pending ReviewItem. Resolving uses a version check (a
conditional UPDATE), so two moderators at once, or a second attempt, change nothing (SQLite ignores
``select_for_update``).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, OperationalError, transaction
from django.db.models import F
from django.utils import timezone

from arena.recompute import cell_content_changed
from core.moderators import user_can_moderate
from core.text import clean_text
from flags.filing import cell_flag_errors, client_lock, flag_file
from flags.inputs import FlagInput, ModerationDecision
from flags.models import Flag, ModeratorAction, ReviewItem, Status
from flags.notices import notices_flag_filed, notices_item_decided
from flags.selectors import review_item_proposal
from stories.evidence import Quote
from stories.models import Cell, CellChange
from stories.services import cell_correct
from stories.values import CellValue

# who asks to resolve an item: a request's user (only a moderator may)
Someone = AbstractBaseUser | AnonymousUser


class AlreadyResolved(Exception):
    """The review item was resolved by someone else (or by an earlier attempt)."""


def flag_submit(*, cell: Cell | int | None, data: FlagInput, client: str) -> Flag:
    """File a flag on a cell (a Cell or its id): validate, throttle, and group it into the cell's
    pending review item.

    ``client`` is the client's key (``web.http.clients.client_key``). The rate limit and the "one
    pending flag per client per cell" rule are checked inside the insert's transaction, under a
    per-client lock (and the latter by a unique constraint too), so simultaneous requests cannot
    slip past them. Raises ValidationError (a message per field) or FlagThrottled; writes nothing
    then.

    A later flag on a cell is a few statements in a transaction: the client's lock (an upsert of
    its row), the cell's pending item (locked, with the client's rate limit and whether it has a
    flag there), the INSERT of the flag, the arena's content version and the flag's mail (the
    outbox).
    """
    cell_id = cell.pk if isinstance(cell, Cell) else cell
    errors = data.errors()
    if errors or cell_id is None:
        raise ValidationError({**cell_flag_errors(cell_id), **errors})
    now = timezone.now()
    for _attempt in range(3):
        flag = Flag(cell_id=cell_id, client_hash=client, created_at=now, **data.model_fields())
        try:
            with transaction.atomic():
                client_lock(client, now)
                flag_file(flag)
                notices_flag_filed(flag)
                return flag
        except (IntegrityError, OperationalError):
            # another client opened the cell's item, a token clash, or the database chose this
            # request as a deadlock victim: the next attempt starts afresh
            continue
    raise ValidationError({"cell": "Could not file the flag right now; please try again."})


# ---------------------------------------------------------------- moderation


def _check_decision(moderator: Someone, decision: ModerationDecision) -> User:
    """The moderator, signed in and allowed to decide; the decision's own rules."""
    if not isinstance(moderator, User) or not user_can_moderate(moderator):
        raise PermissionDenied(
            "Only superusers and members of the Moderators group may resolve flags."
        )
    errors = decision.errors()
    if errors:
        raise ValidationError(errors)
    return moderator


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
    # the dispute is public (the cell's page, the arena's disputes): a decision, and the split of
    # the flags it did not cover, show at once
    cell_content_changed(cell_id=item.cell_id)
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


# The source tag of a flag's source accepted as evidence (the evidence's ``source``)
ACCEPTED_SOURCE = "community"
EVIDENCE_QUOTE_MAX = 2000
NO_SOURCE = "No flag in this decision gives a source URL to accept as evidence."


def _accepted_quotes(
    item: ReviewItem, decision: ModerationDecision, quote: str | None
) -> list[Quote]:
    """The flags' source URLs (of the flags the decision covers), each once, as new evidence of
    the cell: source ``community``, the moderator's ``quote`` or else the flag's explanation,
    checked on the day of the decision. ValidationError when none of the flags gives one."""
    flags = Flag.objects.filter(item_id=item.pk).exclude(source_url="").order_by("created_at", "pk")
    if decision.seen_flags is not None:
        flags = flags.filter(pk__in=decision.seen_flags)
    accepted: dict[str, Flag] = {}
    for flag in flags:
        accepted.setdefault(flag.source_url, flag)
    if not accepted:
        raise ValidationError({"accept_source": NO_SOURCE})
    return [
        Quote(source=ACCEPTED_SOURCE, quote=quote or flag.explanation, url=url)
        for url, flag in accepted.items()
    ]


def _log(
    item: ReviewItem,
    moderator: User,
    action: str,
    decision: ModerationDecision,
    detail: dict[str, Any],
) -> None:
    """The moderators' audit log of a decision (append-only)."""
    ModeratorAction.objects.create(
        item=item,
        moderator=moderator,
        action=action,
        note=decision.note_text,
        detail=detail,
        created_at=timezone.now(),
    )


def _pending_locked(item: ReviewItem, decision: ModerationDecision) -> tuple[ReviewItem, CellValue]:
    """The item, locked, with its cell (the item first, then the cell: the order flag_submit takes
    them in), and what upholding writes: the moderator's values, the rest from the flags' proposal
    or the cell. AlreadyResolved unless it is pending; ValidationError per field when the values
    make no valid cell (checked before the sources: a wrong value is the first thing to fix)."""
    item = ReviewItem.objects.select_for_update(of=("self",)).select_related("cell").get(pk=item.pk)
    if item.status != Status.PENDING:
        raise AlreadyResolved("This flag was already resolved; nothing was changed.")
    _check_seen(item, decision.seen_flags)
    start = review_item_proposal(item, decision.seen_flags) or CellValue.of(item.cell)
    value = decision.corrected(start)
    if errors := value.errors():
        raise ValidationError(errors)
    return item, value


def review_item_uphold(
    *,
    item: ReviewItem,
    moderator: Someone,
    decision: ModerationDecision,
    rationale: str | None = None,
    accept_source: bool = False,
    evidence_quote: str | None = None,
) -> ReviewItem:
    """Uphold a review item: correct the cell through ``cell_correct`` (recorded publicly with the
    note), resolve the item once, schedule the recomputation. A decision on an item resolved or
    changed since it was read raises AlreadyResolved; on a cell edited since, EditConflict.

    ``rationale``: the cell's new rationale (marked rewritten with the correction); without one the
    old stays, marked as written before a correction that changed the verdict or the quality.
    ``accept_source``: the flags' source URLs become new evidence (``_accepted_quotes``)."""
    moderator = _check_decision(moderator, decision)
    rationale = clean_text(rationale or "").strip() or None
    evidence_quote = clean_text(evidence_quote or "").strip() or None
    errors: dict[str, str] = {}
    if rationale is not None and len(rationale) > RATIONALE_MAX:
        errors["rationale"] = f"Keep the rationale under {RATIONALE_MAX} characters."
    if evidence_quote is not None and len(evidence_quote) > EVIDENCE_QUOTE_MAX:
        errors["evidence_quote"] = f"Keep the quote under {EVIDENCE_QUOTE_MAX} characters."
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        item, value = _pending_locked(item, decision)
        quotes = _accepted_quotes(item, decision, evidence_quote) if accept_source else []
        replaced = item.cell.rationale  # kept in the audit log: the public record has no text
        # recorded even when the values stay: the public record lists every upheld flag (integrity
        # counts only the net of a cell's upheld corrections against the product's claim)
        change = cell_correct(
            cell=item.cell,
            value=value,
            by=moderator,
            note=decision.note_text,
            kind=CellChange.Kind.FLAG,
            expected_version=decision.cell_version,
            rationale=rationale,
            quotes=quotes,
            record_unchanged=True,
        )
        assert change is not None  # record_unchanged promises a record
        _resolve(item, status=Status.UPHELD, moderator=moderator, decision=decision, change=change)
        rewritten = None if rationale is None else {"old": replaced, "new": item.cell.rationale}
        detail = {  # the audit log's account (the public record has no text)
            "old": [change.old_verdict, change.old_proof, change.old_quality],
            "new": [change.new_verdict, change.new_proof, change.new_quality],
            "rationale": rewritten or "kept",
            **_flags_detail(decision),
            **({"accepted_sources": [q.url for q in quotes]} if quotes else {}),
        }
        _log(item, moderator, ModeratorAction.Action.UPHOLD, decision, detail)
        notices_item_decided(item)
    item.refresh_from_db()
    return item


def review_item_reject(
    *,
    item: ReviewItem,
    moderator: Someone,
    decision: ModerationDecision,
    duplicate: bool = False,
) -> ReviewItem:
    """Reject (or mark duplicate): the cell stays as it is (a ``correction`` is not read); the
    note is public."""
    moderator = _check_decision(moderator, decision)
    with transaction.atomic():
        _check_seen(item, decision.seen_flags)
        _resolve(
            item,
            status=Status.DUPLICATE if duplicate else Status.REJECTED,
            moderator=moderator,
            decision=decision,
        )
        action = ModeratorAction.Action.DUPLICATE if duplicate else ModeratorAction.Action.REJECT
        _log(item, moderator, action, decision, _flags_detail(decision))
        notices_item_decided(item)
    item.refresh_from_db()
    return item
