"""The writes of mail about flags: the outbox (``Notice``) written in the transaction of a flag or a
decision; a reporter's unsubscribe; the erasure of reporters' addresses.

Nothing about mail can lose or delay a flag or a decision: the notice is a row of the same
transaction, and no mail is sent inside a request. With a broker a task per notice is sent once
the transaction commits (a broker that is down is logged; the periodic sweep sends the notice
later); without one the notices are due at once and ``send_notices`` (cron) sends them.
"""

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


def _new(kind: Notice.Kind, flag_id: int, now: datetime) -> Notice:
    grace = timedelta(0) if settings.CELERY_TASK_ALWAYS_EAGER else FIRST_ATTEMPT_GRACE
    return Notice(kind=kind, flag_id=flag_id, created_at=now, next_attempt_at=now + grace)


def _send_after_commit(notices: list[Notice]) -> None:
    """With a broker, a task per notice once the transaction commits (the moderators' new flag
    only when they are told at once); without one, nothing: ``send_notices`` sends them."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return
    immediate = settings.MODERATOR_NOTICES == "immediate"
    ids = [n.pk for n in notices if immediate or n.kind != Notice.Kind.NEW_FLAG]
    if ids:
        transaction.on_commit(lambda: notices_enqueue(ids))


def notices_flag_filed(flag: Flag) -> None:
    """In the filing transaction: "received" for the reporter (when they left an address) and a
    new flag for the moderators (at once, or in the next digest). One INSERT."""
    now = timezone.now()
    notices = [_new(Notice.Kind.NEW_FLAG, flag.pk, now)]
    if flag.email:
        notices.insert(0, _new(Notice.Kind.RECEIVED, flag.pk, now))
    _send_after_commit(Notice.objects.bulk_create(notices))


def notices_item_decided(item: ReviewItem) -> None:
    """In the decision's transaction, after the item is resolved: "decided" for each reporter of
    the item's flags (those the decision covers) who left an address."""
    now = timezone.now()
    flag_ids = Flag.objects.filter(item_id=item.pk).exclude(email="").values_list("pk", flat=True)
    notices = [_new(Notice.Kind.DECIDED, flag_id, now) for flag_id in flag_ids]
    if notices:
        _send_after_commit(Notice.objects.bulk_create(notices))


def notices_enqueue(ids: list[int]) -> None:
    """Send a task for each committed notice; stops at the first the broker refuses (the sweep
    sends what is left). Raises nothing."""
    for notice_id in ids:
        try:
            celery_app.send_task(NOTICE_TASK, args=[notice_id])
        except Exception:  # noqa: BLE001 - the flag or decision is committed; the sweep retries
            log.warning("notice %s not queued; the sweep will send it", notice_id, exc_info=True)
            return


def flag_unsubscribe(flag_id: int) -> bool:
    """The reporter wants no more mail about this flag: its address is erased and its pending
    mail skipped. False when there is no such flag."""
    with transaction.atomic():
        found = Flag.objects.filter(pk=flag_id).update(email="")
        Notice.objects.filter(
            flag_id=flag_id, status=Notice.State.PENDING, kind__in=REPORTER_KINDS
        ).update(status=Notice.State.SKIPPED)
    return bool(found)


def flag_emails_erase(now: datetime | None = None) -> int:
    """Erase reporters' addresses FLAG_EMAIL_RETENTION_DAYS after the decision on their flag
    (the flag's address; its mail still pending is skipped and its errors, which may name the
    address, cleared). Returns how many addresses were erased."""
    cutoff = (now or timezone.now()) - timedelta(days=settings.FLAG_EMAIL_RETENTION_DAYS)
    expired = Flag.objects.filter(item__resolved_at__lte=cutoff).exclude(email="")
    with transaction.atomic():
        notices = Notice.objects.filter(flag__in=expired.values("pk"))
        notices.filter(status=Notice.State.PENDING, kind__in=REPORTER_KINDS).update(
            status=Notice.State.SKIPPED
        )
        notices.exclude(last_error="").update(last_error="")
        return expired.update(email="")
