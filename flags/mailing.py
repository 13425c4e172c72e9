"""Sending the outbox (``flags.models.Notice``): what each mail says, to whom, and one attempt at
a time, recorded on the notice.

A notice is claimed before it is sent (a conditional UPDATE of its attempt count, never past
``NOTICE_MAX_ATTEMPTS``), so a task, its retry and the periodic sweep never send it twice at once.
Any failure of an attempt, a mail server that refuses or cannot be reached as much as a mail that
cannot be written, leaves the notice pending with the error, due again after an exponential
backoff; after its last attempt it is kept as failed and logged as an error. The sweep goes on
past a notice whatever happens to it. Every mail is built by ``_message``, which cleans what the
database gives it (``flags.mailtext``) and writes it out before any is sent.
The reporter's address is read from the flag at each attempt (none kept here), so an unsubscribe
or an erasure stops the mail: the notice is skipped then.
"""

from __future__ import annotations

import contextlib
import logging
import smtplib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core import signing
from django.core.mail import EmailMessage, mailers
from django.db import transaction
from django.db.models import F, Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from core.moderators import MODERATORS_GROUP
from flags.mailtext import LOG_MAX, body_text, one_line
from flags.models import Flag, Notice
from flags.origin import mail_origin

log = logging.getLogger(__name__)

# the mail server refused, or could not be reached in EMAIL_TIMEOUT: the next notices would fail too
SEND_ERRORS = (smtplib.SMTPException, OSError)
SUBJECT_MAX = 200
BACKOFF_MAX = 3600  # seconds: the longest wait between two attempts
SWEEP_BATCH = 200  # notices one sweep sends at most; the next sweep sends the rest
UNSUBSCRIBE_SALT = "flags.unsubscribe"
# what a mail says of its flag: its cell, product, story and arena, its item and the decision
FLAG_RELATED = ("item__change", "cell__product", "cell__story__arena")


@dataclass(frozen=True)
class Outcome:
    """What one attempt did: ``sent``, ``skipped`` (nobody to send to), ``retry`` (failed, due
    again in ``retry_in`` seconds), ``failed`` (given up), ``busy`` (another sender has it) or
    ``done`` (not pending any more); on a failure, ``reason`` (one line, no address) and whether
    the mail server failed (``server_failed``: the next notices would fail the same way)."""

    status: str
    retry_in: float | None = None
    reason: str = ""
    server_failed: bool = False


def unsubscribe_flag_id(token: str) -> int | None:
    """The flag a token was signed for; None when it is not a token of ours."""
    try:
        value = signing.Signer(salt=UNSUBSCRIBE_SALT).unsign(token)
    except signing.BadSignature:
        return None
    return int(value) if value.isdigit() else None


def backoff(attempts: int) -> float:
    """Seconds to wait after the ``attempts``-th failed attempt."""
    return float(min(BACKOFF_MAX, settings.NOTICE_RETRY_BACKOFF * 2 ** max(0, attempts - 1)))


def moderator_addresses() -> list[str]:
    """Every active moderator's address (superusers and the Moderators group, as
    ``core.moderators.user_can_moderate`` says), each once."""
    users = User.objects.filter(is_active=True).exclude(email="")
    users = users.filter(Q(is_superuser=True) | Q(groups__name=MODERATORS_GROUP))
    return sorted(set(users.values_list("email", flat=True)))


def _render(template: str, context: dict[str, Any]) -> str:
    return render_to_string(f"flags/email/{template}", context).strip() + "\n"


def _message(
    subject: str, body: str, to: list[str], headers: dict[str, str] | None = None
) -> EmailMessage:
    """Every mail is built here: its subject one line, its headers too, its body sendable. It is
    written out once now, so a mail that cannot be (an address the database holds broken) fails
    its notice before any mail of the attempt is sent."""
    message = EmailMessage(
        one_line(subject, SUBJECT_MAX),
        body_text(body),
        to=to,
        headers={name: one_line(value, None) for name, value in (headers or {}).items()},
    )
    message.message()
    return message


def _reporter_mails(notice: Notice) -> list[EmailMessage]:
    """ "Received" or "decided", to the flag's address; none when it has none (any more)."""
    flag = notice.flag
    if not flag.email:
        return []
    origin = mail_origin()
    token = signing.Signer(salt=UNSUBSCRIBE_SALT).sign(str(flag.pk))  # never expires
    unsubscribe = origin + reverse("flag-unsubscribe", args=[token])
    product = one_line(flag.cell.product.name)
    if notice.kind == Notice.Kind.RECEIVED:
        subject, template = f"Your flag on {product}: received", "received.txt"
    else:
        subject, template = (
            f"Your flag on {product}: {flag.item.get_status_display()}",
            "decided.txt",
        )
    body = _render(
        template,
        {
            "flag": flag,
            "cell": flag.cell,
            "item": flag.item,
            "status_url": origin + flag.get_absolute_url(),
            "unsubscribe_url": unsubscribe,
            "retention_days": settings.FLAG_EMAIL_RETENTION_DAYS,
        },
    )
    headers = {
        "List-Unsubscribe": f"<{unsubscribe}>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    }
    return [_message(subject, body, [flag.email], headers)]


def _moderator_mails(flags: list[Flag], origin: str) -> list[EmailMessage]:
    """One mail per moderator naming the new flags, each with its review page in the admin."""
    addresses = moderator_addresses()
    if not addresses or not flags:
        return []
    if len(flags) == 1:
        subject = f"New flag on {one_line(flags[0].cell.product.name)}"
    else:
        subject = f"{len(flags)} new flags to review"
    rows = [
        (flag, origin + reverse("admin:flags_reviewitem_change", args=[flag.item_id]))
        for flag in flags
    ]
    body = _render("moderators.txt", {"rows": rows, "count": len(flags)})
    return [_message(subject, body, [address]) for address in addresses]


def _addresses(notices: list[Notice]) -> set[str]:
    """Whom the notices' mail is for (kept out of their errors)."""
    found = {n.flag.email for n in notices}
    if any(n.kind == Notice.Kind.NEW_FLAG for n in notices):
        found.update(moderator_addresses())
    return found - {""}


def _reason(exc: BaseException, addresses: Iterable[str]) -> str:
    """The error as kept on the notice and logged: one line, with no recipient's address in it."""
    text = f"{type(exc).__name__}: {exc}"
    for address in addresses:
        text = text.replace(address, "<recipient>")
    return one_line(text, LOG_MAX)


def _failed(notices: list[Notice], reason: str, server_failed: bool = False) -> Outcome:
    """Record a failed attempt: retried later, or given up after the last one (logged loudly)."""
    final = [n.pk for n in notices if n.attempts >= settings.NOTICE_MAX_ATTEMPTS]
    again = [n.pk for n in notices if n.pk not in final]
    with transaction.atomic():
        Notice.objects.filter(pk__in=again).update(last_error=reason)
        Notice.objects.filter(pk__in=final).update(status=Notice.State.FAILED, last_error=reason)
    for notice in notices:
        if notice.pk in final:
            log.error(
                "notice %s (%s) failed after %s attempts, given up: %s",
                notice.pk,
                notice.kind,
                notice.attempts,
                reason,
            )
    if not again:
        return Outcome("failed", reason=reason, server_failed=server_failed)
    attempts = max(n.attempts for n in notices if n.pk in again)
    wait = backoff(attempts)
    log.warning(
        "notices %s not sent (attempt %s), due again in %ss: %s", again, attempts, wait, reason
    )
    return Outcome("retry", retry_in=wait, reason=reason, server_failed=server_failed)


def _attempt(notices: list[Notice], compose: Callable[[], list[EmailMessage]]) -> Outcome:
    """Compose (``compose()``: the messages) and send the claimed notices' mail, once. Whatever
    fails, the attempt is counted and recorded; nothing is raised but a database error."""
    ids = [n.pk for n in notices]
    try:
        messages = compose()
    except Exception as exc:  # noqa: BLE001 - a mail we cannot write is a failed attempt too
        log.debug("notices %s: the mail could not be written", ids, exc_info=True)
        return _failed(notices, _reason(exc, _addresses(notices)))
    if not messages:
        Notice.objects.filter(pk__in=ids).update(status=Notice.State.SKIPPED, last_error="")
        return Outcome("skipped")
    try:
        with mailers.default as connection:  # one connection; EMAIL_TIMEOUT bounds each step
            connection.send_messages(messages)
    except Exception as exc:  # noqa: BLE001 - whatever stops the send, the attempt counts
        reason = _reason(exc, (address for m in messages for address in m.to))
        return _failed(notices, reason, server_failed=isinstance(exc, SEND_ERRORS))
    Notice.objects.filter(pk__in=ids).update(
        status=Notice.State.SENT, sent_at=timezone.now(), last_error=""
    )
    return Outcome("sent")


def _claim(notice: Notice) -> bool:
    """Take the next attempt of a pending notice (False: another sender took it, it is done, or
    it has had its last attempt). Its next attempt is due after the backoff, which is also how
    long this one may take."""
    attempts = notice.attempts + 1
    due = timezone.now() + timedelta(seconds=backoff(attempts))
    claimed = Notice.objects.filter(
        pk=notice.pk,
        status=Notice.State.PENDING,
        attempts=notice.attempts,
        attempts__lt=settings.NOTICE_MAX_ATTEMPTS,
    ).update(attempts=attempts, next_attempt_at=due)
    notice.attempts = attempts
    return bool(claimed)


def notice_deliver(notice_id: int) -> Outcome:
    """One attempt at sending one notice (the task's, or the sweep's: the beat's or
    ``send_notices``). Failures are recorded, never raised (but the database's own)."""
    related = [f"flag__{path}" for path in FLAG_RELATED]
    notice = (
        Notice.objects.select_related("flag", *related)
        .filter(pk=notice_id, status=Notice.State.PENDING)
        .first()
    )
    if notice is None:
        return Outcome("done")
    if notice.attempts >= settings.NOTICE_MAX_ATTEMPTS:
        # still pending after its last attempt (the limit lowered, or an attempt that broke off)
        return _failed([notice], notice.last_error or "no attempt left")
    if not _claim(notice):
        return Outcome("busy")
    if notice.kind == Notice.Kind.NEW_FLAG:
        return _attempt([notice], lambda: _moderator_mails([notice.flag], mail_origin()))
    return _attempt([notice], lambda: _reporter_mails(notice))


def _deliver_apart(notice_id: int) -> Outcome:
    """``notice_deliver`` whatever it raises (the database, on this notice's rows): logged as an
    error and returned as ``error``, so one notice never stops the sweep."""
    # A savepoint when the sweep runs inside a transaction. Outside one, none is held while the
    # mail server talks: SQLite's IMMEDIATE transactions would lock every writer out meanwhile
    # (each write of an attempt is atomic on its own).
    in_transaction = transaction.get_connection().in_atomic_block
    try:
        with transaction.atomic() if in_transaction else contextlib.nullcontext():
            return notice_deliver(notice_id)
    except Exception as exc:  # noqa: BLE001 - the next notices still go
        reason = _reason(exc, ())
        log.error("notice %s: its attempt broke off, left to the next sweep: %s", notice_id, reason)
        return Outcome("error", reason=reason)


def notices_sweep(now: datetime | None = None) -> dict[int, Outcome]:
    """Send what is still due (the periodic sweep, ``send_notices``): pending notices whose next
    attempt has come, oldest first; the moderators' notices only when they are not sent as a
    digest; and any still pending past its last attempt, marked failed. Each notice on its own:
    the sweep always finishes. Returns each notice's outcome."""
    pending = Notice.objects.filter(status=Notice.State.PENDING)
    due = pending.filter(next_attempt_at__lte=now or timezone.now())
    if settings.MODERATOR_NOTICES == "digest":
        due = due.exclude(kind=Notice.Kind.NEW_FLAG)
    due = due | pending.filter(attempts__gte=settings.NOTICE_MAX_ATTEMPTS)
    ids = list(due.order_by("next_attempt_at", "pk").values_list("pk", flat=True)[:SWEEP_BATCH])
    return {notice_id: _deliver_apart(notice_id) for notice_id in ids}


def notices_send_due(now: datetime | None = None) -> dict[str, int]:
    """``notices_sweep``, counted: how many notices ended each way (``sent``, ``retry``...)."""
    return dict(Counter(outcome.status for outcome in notices_sweep(now).values()))


def moderator_digest_send(now: datetime | None = None) -> Outcome:
    """One mail to each moderator naming every new flag not told yet ("3 new flags to review"),
    with each flag's review page: the digest, every MODERATOR_DIGEST_SECONDS. Constant queries
    whatever the number of flags."""
    now = now or timezone.now()
    pending = Notice.objects.filter(
        status=Notice.State.PENDING,
        kind=Notice.Kind.NEW_FLAG,
        attempts__lt=settings.NOTICE_MAX_ATTEMPTS,
    )
    due = pending.filter(Q(attempts=0) | Q(next_attempt_at__lte=now))
    ids = list(due.order_by("pk").values_list("pk", flat=True)[:SWEEP_BATCH])
    if not ids:
        return Outcome("done")
    claimed = pending.filter(pk__in=ids)
    claimed.update(attempts=F("attempts") + 1)
    notices = list(claimed.select_related("flag", *(f"flag__{p}" for p in FLAG_RELATED)))
    if not notices:
        return Outcome("busy")
    wait = backoff(max(n.attempts for n in notices))
    claimed.update(next_attempt_at=timezone.now() + timedelta(seconds=wait))
    origin = mail_origin()
    try:
        messages = _moderator_mails([n.flag for n in notices], origin)
    except Exception:  # noqa: BLE001 - find the flags that cannot be written; the rest go
        writable = []
        for notice in notices:  # each other one fails its attempt alone, holding no one back
            try:
                _moderator_mails([notice.flag], origin)
            except Exception as exc:  # noqa: BLE001 - this notice's failed attempt
                _failed([notice], _reason(exc, _addresses([notice])))
            else:
                writable.append(notice)
        notices = writable
        if not notices:
            return Outcome("retry", retry_in=wait)
        return _attempt(notices, lambda: _moderator_mails([n.flag for n in notices], origin))
    return _attempt(notices, lambda: messages)
