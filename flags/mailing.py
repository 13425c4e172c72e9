"""The flags' mail: an outbox (``Notice``) written with the flag or decision, claimed and sent after
the commit by a task or the sweep, retried after a backoff. With a broker, one task per second of
new notices per process, not one per notice: under a flood the publish would cost too much."""

from __future__ import annotations

import contextlib
import logging
import math
import re
import threading
import time
import unicodedata
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import reduce
from operator import or_
from typing import Any

from celery import current_app as celery_app
from django.conf import settings
from django.contrib.auth.models import User
from django.core import signing
from django.core.mail import EmailMessage, mailers
from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from core.moderators import MODERATORS_GROUP
from flags.models import Flag, Notice, ReviewItem
from flags.task_names import NEW_NOTICES_TASK

log = logging.getLogger(__name__)

SUBJECT_MAX = 200
HEADER_MAX = 120  # characters of a name kept in a subject; the body names it in full
LOG_MAX = 1000
BACKOFF_MAX = 3600  # seconds: the longest wait between two attempts
SWEEP_BATCH = 200  # notices one sweep sends at most; the next sweep sends the rest
UNSUBSCRIBE_SALT = "flags.unsubscribe"
ONE_CLICK = "List-Unsubscribe=One-Click"
LOCAL_ORIGIN = "http://localhost:8000"  # with neither SITE_URL nor a usable host, as `make run`
RELATED = ("flag__item__change", "flag__cell__product", "flag__cell__story__arena")
# control, format, surrogate, private, unassigned, line/paragraph separators: never in a mail
_UNSAFE = frozenset(("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"))


def mail_origin() -> str:
    """``SITE_URL``, else the first of ALLOWED_HOSTS: never a request's Host (the filer's choice)."""
    if settings.SITE_URL:
        return str(settings.SITE_URL)
    for host in settings.ALLOWED_HOSTS:
        host = host.lstrip(".")  # ".example.org" is example.org and its subdomains
        if host and "*" not in host:
            return f"{'http' if settings.DEBUG else 'https'}://{host}"
    return LOCAL_ORIGIN


def one_line(text: object, limit: int | None = HEADER_MAX) -> str:
    """``text`` as one line for a header or a log line, cut to ``limit`` with an ellipsis."""
    value = "".join(" " if unicodedata.category(c) in _UNSAFE else c for c in str(text))
    value = re.sub(r"\s+", " ", value).strip()
    return value if limit is None or len(value) <= limit else value[: limit - 1].rstrip() + "…"


def body_text(text: str) -> str:
    """``text`` for a mail's body: line breaks (as LF) and tabs kept, other unsafe characters a space."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return "".join(
        c if c in "\t\n" or unicodedata.category(c) not in _UNSAFE else " " for c in text
    )


@dataclass(frozen=True)
class Outcome:
    """sent, skipped, retry (in ``retry_in`` s), failed, busy (another sender's), done or error."""

    status: str
    retry_in: float | None = None
    reason: str = ""


def unsubscribe_flag_id(token: str) -> int | None:
    with contextlib.suppress(signing.BadSignature):
        value = signing.Signer(salt=UNSUBSCRIBE_SALT).unsign(token)
        return int(value) if value.isdigit() else None
    return None


def backoff(attempts: int) -> float:
    return float(min(BACKOFF_MAX, settings.NOTICE_RETRY_BACKOFF * 2 ** max(0, attempts - 1)))


def moderator_addresses() -> list[str]:
    users = User.objects.filter(is_active=True).exclude(email="")
    users = users.filter(Q(is_superuser=True) | Q(groups__name=MODERATORS_GROUP))
    return sorted(set(users.values_list("email", flat=True)))


def _message(
    subject: str, template: str, context: dict[str, Any], to: list[str], headers: dict[str, str]
) -> EmailMessage:
    # written out now: a mail that cannot be (a broken address) fails before any is sent
    body = render_to_string(f"flags/email/{template}", context).strip() + "\n"
    message = EmailMessage(
        one_line(subject, SUBJECT_MAX),
        body_text(body),
        to=to,
        headers={name: one_line(value, None) for name, value in headers.items()},
    )
    message.message()
    return message


def _mails(notices: list[Notice], addresses: list[str]) -> list[EmailMessage]:
    """A reporter's mail (none without an address), or each moderator's naming all the flags."""
    flag, origin = notices[0].flag, mail_origin()
    if notices[0].kind == Notice.Kind.NEW_FLAG:
        flags = [n.flag for n in notices]
        many = f"{len(flags)} new flags to review"
        subject = many if len(flags) > 1 else f"New flag on {one_line(flag.cell.product.name)}"
        link = "admin:flags_reviewitem_change"
        rows = [(f, origin + reverse(link, args=[f.item_id])) for f in flags]
        context = {"rows": rows, "count": len(flags)}
        return [_message(subject, "moderators.txt", context, [to], {}) for to in addresses]
    if not flag.email:
        return []
    token = signing.Signer(salt=UNSUBSCRIBE_SALT).sign(str(flag.pk))  # never expires
    unsubscribe = origin + reverse("flag-unsubscribe", args=[token])
    context = {
        "flag": flag,
        "status_url": origin + flag.get_absolute_url(),
        "unsubscribe_url": unsubscribe,
        "retention_days": settings.FLAG_EMAIL_RETENTION_DAYS,
    }
    headers = {"List-Unsubscribe": f"<{unsubscribe}>", "List-Unsubscribe-Post": ONE_CLICK}
    kind = notices[0].kind
    state = "received" if kind == Notice.Kind.RECEIVED else flag.item.get_status_display()
    subject = f"Your flag on {one_line(flag.cell.product.name)}: {state}"
    return [_message(subject, f"{kind}.txt", context, [flag.email], headers)]


def _failed(notices: list[Notice], exc: BaseException | str, addresses: list[str]) -> Outcome:
    """Record a failed attempt (the error one line, no address in it): retried, or given up."""
    reason = exc if isinstance(exc, str) else f"{type(exc).__name__}: {exc}"
    for address in {*addresses, *(n.flag.email for n in notices)} - {""}:
        reason = reason.replace(address, "<recipient>")
    reason = one_line(reason, LOG_MAX)
    final = [n for n in notices if n.attempts >= settings.NOTICE_MAX_ATTEMPTS]
    again = [n for n in notices if n not in final]
    Notice.objects.filter(pk__in=[n.pk for n in notices]).update(last_error=reason)
    Notice.objects.filter(pk__in=[n.pk for n in final]).update(status=Notice.State.FAILED)
    for n in final:
        what = f"notice {n.pk} ({n.kind}) failed after {n.attempts} attempts"
        log.error("%s, given up: %s", what, reason)
    if not again:
        return Outcome("failed", reason=reason)
    wait = backoff(max(n.attempts for n in again))
    log.warning("notices %s not sent, due again in %ss: %s", [n.pk for n in again], wait, reason)
    return Outcome("retry", retry_in=wait, reason=reason)


def _send(notices: list[Notice]) -> Outcome:
    """Claim the notices still as read (an attempt counted, due again after the backoff; the time
    set marks them as this sender's), then send their mail once."""
    if not notices:
        return Outcome("done")
    marker = timezone.now() + timedelta(seconds=backoff(max(n.attempts for n in notices) + 1))
    unchanged = reduce(or_, (Q(pk=n.pk, attempts=n.attempts) for n in notices))
    pending = Notice.objects.filter(status=Notice.State.PENDING)
    pending.filter(unchanged).update(attempts=F("attempts") + 1, next_attempt_at=marker)
    ids = [n.pk for n in notices]
    mine = set(pending.filter(pk__in=ids, next_attempt_at=marker).values_list("pk", flat=True))
    notices, ids = [n for n in notices if n.pk in mine], [pk for pk in ids if pk in mine]
    if not notices:
        return Outcome("busy")
    for n in notices:
        n.attempts += 1
    addresses = moderator_addresses() if notices[0].kind == Notice.Kind.NEW_FLAG else []
    try:
        if messages := _mails(notices, addresses):
            with mailers.default as connection:  # one connection; EMAIL_TIMEOUT bounds each step
                connection.send_messages(messages)
    except Exception as exc:  # noqa: BLE001 - whatever stops the mail, the attempt counts
        log.debug("notices %s not sent", ids, exc_info=True)
        return _failed(notices, exc, addresses)
    done = Notice.State.SENT if messages else Notice.State.SKIPPED
    Notice.objects.filter(pk__in=ids).update(
        status=done, sent_at=timezone.now() if messages else None, last_error=""
    )
    return Outcome(done.value)


def notice_deliver(notice_id: int) -> Outcome:
    """One attempt at one notice (its task's, or the sweep's)."""
    pending = Notice.objects.filter(pk=notice_id, status=Notice.State.PENDING)
    notices = list(pending.select_related("flag", *RELATED))
    if notices and notices[0].attempts >= settings.NOTICE_MAX_ATTEMPTS:
        # still pending after its last attempt (the limit lowered, or an attempt broke off)
        return _failed(notices, notices[0].last_error or "no attempt left", [])
    return _send(notices)


def moderator_digest_send(now: datetime | None = None) -> Outcome:
    """One mail to each moderator naming every new flag not told yet (MODERATOR_NOTICES=digest)."""
    due = Notice.objects.filter(
        Q(attempts=0) | Q(next_attempt_at__lte=now or timezone.now()),
        status=Notice.State.PENDING,
        kind=Notice.Kind.NEW_FLAG,
        attempts__lt=settings.NOTICE_MAX_ATTEMPTS,
    )
    return _send(list(due.select_related("flag", *RELATED).order_by("pk")[:SWEEP_BATCH]))


def notices_sweep(now: datetime | None = None) -> dict[int, Outcome]:
    """Each notice due, oldest first (the moderators' unless sent as a digest), and any pending past
    its last attempt marked failed; one breaking off never stops the others."""
    pending = Notice.objects.filter(status=Notice.State.PENDING)
    due = pending.filter(next_attempt_at__lte=now or timezone.now())
    if settings.MODERATOR_NOTICES == "digest":
        due = due.exclude(kind=Notice.Kind.NEW_FLAG)
    due = due | pending.filter(attempts__gte=settings.NOTICE_MAX_ATTEMPTS)
    return _deliver_each(due.order_by("next_attempt_at", "pk"))


def notices_new_send() -> dict[int, Outcome]:
    """The first attempt at each notice no sender has tried yet (the moderators' unless sent as a
    digest), oldest first: the task a commit sends (``Kicks``)."""
    new = Notice.objects.filter(status=Notice.State.PENDING, attempts=0)
    if settings.MODERATOR_NOTICES == "digest":
        new = new.exclude(kind=Notice.Kind.NEW_FLAG)
    return _deliver_each(new.order_by("pk"))


def _deliver_each(notices: QuerySet[Notice]) -> dict[int, Outcome]:
    outcomes = {}
    for pk in notices.values_list("pk", flat=True)[:SWEEP_BATCH]:
        # a savepoint in a transaction; else none held while mail sends (SQLite would block writers)
        atomic = transaction.get_connection().in_atomic_block
        try:
            with transaction.atomic() if atomic else contextlib.nullcontext():
                outcomes[pk] = notice_deliver(pk)
        except Exception as exc:  # noqa: BLE001 - the next notices still go
            reason = one_line(f"{type(exc).__name__}: {exc}", LOG_MAX)
            log.error("notice %s: its attempt broke off, left to the next sweep: %s", pk, reason)
            outcomes[pk] = Outcome("error", reason=reason)
    return outcomes


def notices_send_due(now: datetime | None = None) -> dict[str, int]:
    """How many notices of the sweep ended each way."""
    return dict(Counter(outcome.status for outcome in notices_sweep(now).values()))


FIRST_ATTEMPT_GRACE = timedelta(seconds=60)  # the sweep leaves a new notice to its commit's task


def _write(wanted: list[tuple[Notice.Kind, int]]) -> None:
    """The notices (kind, flag id) in one INSERT; with a broker, a task for them after the commit."""
    now = timezone.now()
    eager = settings.CELERY_TASK_ALWAYS_EAGER
    due = now if eager else now + FIRST_ATTEMPT_GRACE
    notices = Notice.objects.bulk_create(
        Notice(kind=kind, flag_id=pk, created_at=now, next_attempt_at=due) for kind, pk in wanted
    )
    immediate = settings.MODERATOR_NOTICES == "immediate"
    if not eager and any(immediate or n.kind != Notice.Kind.NEW_FLAG for n in notices):
        transaction.on_commit(KICKS.kick)


def notices_flag_filed(flag: Flag) -> None:
    received = [(Notice.Kind.RECEIVED, flag.pk)] if flag.email else []
    _write([*received, (Notice.Kind.NEW_FLAG, flag.pk)])


def notices_item_decided(item: ReviewItem) -> None:
    flags = Flag.objects.filter(item_id=item.pk).exclude(email="").values_list("pk", flat=True)
    _write([(Notice.Kind.DECIDED, pk) for pk in flags])


class Kicks:
    """One task for new notices per ``seconds`` per process, run ``2 * seconds`` later to find all
    committed meanwhile; one the broker refuses leaves them to the next commit or the sweep."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.last = -math.inf
        self.lock = threading.Lock()

    def kick(self) -> None:
        with self.lock:
            now = time.monotonic()
            if now - self.last < self.seconds:
                return
            try:
                celery_app.send_task(NEW_NOTICES_TASK, countdown=2 * self.seconds)
            except Exception:  # noqa: BLE001 - the notices are committed; the sweep sends them
                log.warning(
                    "the new notices' task not queued; the sweep will send them", exc_info=True
                )
                return
            self.last = now

    def forget(self) -> None:
        """The next commit sends a task (tests start from here)."""
        with self.lock:
            self.last = -math.inf


KICKS = Kicks(seconds=1.0)


def flags_forget(flags: QuerySet[Flag]) -> int:
    """Erase the flags' addresses, skip their pending mail, clear errors that may name them."""
    with transaction.atomic():
        notices = Notice.objects.filter(flag__in=flags.values("pk"))
        reporters = notices.filter(status=Notice.State.PENDING).exclude(kind=Notice.Kind.NEW_FLAG)
        reporters.update(status=Notice.State.SKIPPED)
        notices.exclude(last_error="").update(last_error="")
        return flags.update(email="")


def flag_emails_erase(now: datetime | None = None) -> int:
    """Erase reporters' addresses FLAG_EMAIL_RETENTION_DAYS after the decision; how many."""
    cutoff = (now or timezone.now()) - timedelta(days=settings.FLAG_EMAIL_RETENTION_DAYS)
    return flags_forget(Flag.objects.filter(item__resolved_at__lte=cutoff).exclude(email=""))
