"""The writes of mail about flags: the outbox (``Notice``) written in the transaction of a flag or a
decision, sent once that commits; a reporter's unsubscribe; the erasure of reporters' addresses.

Nothing about mail can lose or delay a flag or a decision: the notice is a row of the same
transaction, and sending starts only after the commit. With a broker the task is sent then (a
broker that is down is logged; the periodic sweep sends the notice later); without one, one
attempt is made in-process once the request's response has gone (outside a request, at once),
whose failure is recorded and logged, never raised, and left to ``send_notices`` or the sweep.
"""

from __future__ import annotations

import logging
from contextvars import ContextVar
from datetime import datetime, timedelta
from typing import Any

from celery import current_app as celery_app
from django.conf import settings
from django.db import close_old_connections, transaction
from django.utils import timezone

from flags import mailing
from flags.models import Flag, Notice, ReviewItem
from flags.task_names import NOTICE_TASK

log = logging.getLogger(__name__)

# how long the sweep leaves a new notice to the task sent at the commit
FIRST_ATTEMPT_GRACE = timedelta(seconds=60)
REPORTER_KINDS = (Notice.Kind.RECEIVED, Notice.Kind.DECIDED)
# Without a broker, the notices committed during a request: sent when the request has finished (the
# server has sent the response), so that no visitor waits for a mail server. None: no request.
request_notices: ContextVar[list[int] | None] = ContextVar("request_notices", default=None)


def _new(kind: Notice.Kind, flag_id: int, now: datetime) -> Notice:
    return Notice(
        kind=kind,
        flag_id=flag_id,
        created_at=now,
        next_attempt_at=now + FIRST_ATTEMPT_GRACE,
    )


def _send_after_commit(notices: list[Notice]) -> None:
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
    """Start sending committed notices: a task each with a broker; else one attempt each here,
    after the response when in a request. Raises nothing."""
    held = request_notices.get()
    if settings.CELERY_TASK_ALWAYS_EAGER and held is not None:
        held.extend(ids)
    else:
        _send(ids)


def _send(ids: list[int]) -> None:
    """Stops at the first failure of the mail server or the broker (not once per notice); what is
    left stays pending for the sweep. A notice of its own that fails (its mail cannot be written)
    stops nothing."""
    for notice_id in ids:
        try:
            if settings.CELERY_TASK_ALWAYS_EAGER:
                ok = not mailing.notice_deliver(notice_id).server_failed
            else:
                celery_app.send_task(NOTICE_TASK, args=[notice_id])
                ok = True
        except Exception:  # noqa: BLE001 - the flag or decision is committed; the sweep retries
            log.warning("notice %s not sent now; the sweep will", notice_id, exc_info=True)
            ok = False
        if not ok:
            return


def hold_for_request(**kwargs: Any) -> None:
    """``request_started``: this request's notices wait for its end."""
    request_notices.set([])


def send_after_request(**kwargs: Any) -> None:
    """``request_finished`` (the response is sent): the notices this request committed."""
    held = request_notices.get()
    request_notices.set(None)
    if held:
        _send(held)
        close_old_connections()  # the connection the sending opened, as at the end of a request


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
