"""The writes of mail about flags: the outbox (``Notice``) in the flag's or decision's transaction,
a reporter's unsubscribe, the erasure of reporters' addresses. No mail is sent inside a request:
with a broker a task per notice goes once the transaction commits; without one, ``send_notices``."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from celery import current_app as celery_app
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from flags.models import Flag, Notice, ReviewItem
from flags.task_names import NOTICE_TASK

log = logging.getLogger(__name__)

# how long the sweep leaves a new notice to the task sent at the commit (with a broker)
FIRST_ATTEMPT_GRACE = timedelta(seconds=60)
REPORTER_KINDS = (Notice.Kind.RECEIVED, Notice.Kind.DECIDED)


def _write(wanted: list[tuple[Notice.Kind, int]]) -> None:
    """The notices (kind, flag id) in one INSERT, and with a broker a task for each after the
    commit (the moderators' new flag only when they are told at once)."""
    now = timezone.now()
    eager = settings.CELERY_TASK_ALWAYS_EAGER
    due = now if eager else now + FIRST_ATTEMPT_GRACE
    notices = Notice.objects.bulk_create(
        Notice(kind=kind, flag_id=pk, created_at=now, next_attempt_at=due) for kind, pk in wanted
    )
    immediate = settings.MODERATOR_NOTICES == "immediate"
    ids = [n.pk for n in notices if immediate or n.kind != Notice.Kind.NEW_FLAG]
    if ids and not eager:
        transaction.on_commit(lambda: notices_enqueue(ids))


def notices_flag_filed(flag: Flag) -> None:
    """ "Received" for a reporter who left an address, and a new flag for the moderators."""
    received = [(Notice.Kind.RECEIVED, flag.pk)] if flag.email else []
    _write([*received, (Notice.Kind.NEW_FLAG, flag.pk)])


def notices_item_decided(item: ReviewItem) -> None:
    """ "Decided" for each reporter of the item's flags who left an address."""
    flags = Flag.objects.filter(item_id=item.pk).exclude(email="").values_list("pk", flat=True)
    if wanted := [(Notice.Kind.DECIDED, pk) for pk in flags]:
        _write(wanted)


def notices_enqueue(ids: list[int]) -> None:
    """A task per committed notice; stops at the first the broker refuses (the sweep sends the rest)."""
    for notice_id in ids:
        try:
            celery_app.send_task(NOTICE_TASK, args=[notice_id])
        except Exception:  # noqa: BLE001 - the flag or decision is committed; the sweep retries
            log.warning("notice %s not queued; the sweep will send it", notice_id, exc_info=True)
            return


def flag_unsubscribe(flag_id: int) -> bool:
    """Erase the flag's address and skip its pending mail; False when there is no such flag."""
    with transaction.atomic():
        found = Flag.objects.filter(pk=flag_id).update(email="")
        Notice.objects.filter(
            flag_id=flag_id, status=Notice.State.PENDING, kind__in=REPORTER_KINDS
        ).update(status=Notice.State.SKIPPED)
    return bool(found)


def flag_emails_erase(now: datetime | None = None) -> int:
    """Erase reporters' addresses FLAG_EMAIL_RETENTION_DAYS after the decision (their pending mail
    skipped, their errors, which may name the address, cleared); how many."""
    cutoff = (now or timezone.now()) - timedelta(days=settings.FLAG_EMAIL_RETENTION_DAYS)
    expired = Flag.objects.filter(item__resolved_at__lte=cutoff).exclude(email="")
    with transaction.atomic():
        notices = Notice.objects.filter(flag__in=expired.values("pk"))
        notices.filter(status=Notice.State.PENDING, kind__in=REPORTER_KINDS).update(
            status=Notice.State.SKIPPED
        )
        notices.exclude(last_error="").update(last_error="")
        return expired.update(email="")
