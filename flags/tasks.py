"""Celery's wrappers of ``flags.mailing``, each safe to run twice (a notice is claimed first)."""

from collections import Counter

from celery import Task, shared_task

from flags import mailing
from flags.services import flag_clients_prune
from flags.task_names import (
    DIGEST_TASK,
    ERASE_TASK,
    NEW_NOTICES_TASK,
    NOTICE_TASK,
    NOTICES_DUE_TASK,
)

# sending is bounded by EMAIL_TIMEOUT per step; these only stop a task that hangs anyway
LIMITS = {"soft_time_limit": 120, "time_limit": 180}


@shared_task(name=NOTICE_TASK, bind=True, acks_late=True, max_retries=None, **LIMITS)
def notice_send(self: Task, notice_id: int) -> str:
    """One attempt at a notice; on a mail server error, again after the backoff."""
    outcome = mailing.notice_deliver(notice_id)
    if outcome.retry_in is not None:
        raise self.retry(countdown=outcome.retry_in)
    return outcome.status


@shared_task(name=NEW_NOTICES_TASK, **LIMITS)
def notices_send_new() -> dict[str, int]:
    """The first attempt at the new notices; a failure is retried by a task of its own."""
    outcomes = mailing.notices_new_send()
    for notice_id, outcome in outcomes.items():
        if outcome.retry_in is not None:
            notice_send.apply_async(args=[notice_id], countdown=outcome.retry_in)
    return dict(Counter(outcome.status for outcome in outcomes.values()))


@shared_task(name=NOTICES_DUE_TASK, **LIMITS)
def notices_send_due() -> dict[str, int]:
    """The periodic sweep (a task lost, the broker down); the flag clients past the window go."""
    flag_clients_prune()
    return mailing.notices_send_due()


@shared_task(name=DIGEST_TASK, **LIMITS)
def moderator_digest_send() -> str:
    return mailing.moderator_digest_send().status


@shared_task(name=ERASE_TASK)
def flag_emails_erase() -> int:
    return mailing.flag_emails_erase()
