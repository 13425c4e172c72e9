"""Celery's wrappers of the mail layer (``flags.mailing``, ``flags.notices``): each task has the
name of the function it runs, takes ids, and is safe to run twice (a notice is claimed before it
is sent); the rules live in those functions.

``notice_send`` retries itself with the backoff the notice's attempt count gives; the count is
kept on the notice, so the last attempt marks it failed whoever makes it (this task or the sweep).
"""

from celery import Task, shared_task

from flags import mailing, notices
from flags.filing import flag_clients_prune
from flags.task_names import DIGEST_TASK, ERASE_TASK, NOTICE_TASK, NOTICES_DUE_TASK

# sending is bounded by EMAIL_TIMEOUT per step; these only stop a task that hangs anyway
SOFT_TIME_LIMIT = 120
TIME_LIMIT = 180


@shared_task(
    name=NOTICE_TASK,
    bind=True,
    acks_late=True,
    max_retries=None,
    soft_time_limit=SOFT_TIME_LIMIT,
    time_limit=TIME_LIMIT,
)
def notice_send(self: Task, notice_id: int) -> str:
    """One attempt at a notice; on a mail server error, again after the backoff."""
    outcome = mailing.notice_deliver(notice_id)
    if outcome.retry_in is not None:
        raise self.retry(countdown=outcome.retry_in)
    return outcome.status


@shared_task(name=NOTICES_DUE_TASK, soft_time_limit=SOFT_TIME_LIMIT, time_limit=TIME_LIMIT)
def notices_send_due() -> dict[str, int]:
    """The periodic sweep: the notices still due (their task lost, or the broker down); and the
    flag clients past the rate window forgotten."""
    flag_clients_prune()
    return mailing.notices_send_due()


@shared_task(name=DIGEST_TASK, soft_time_limit=SOFT_TIME_LIMIT, time_limit=TIME_LIMIT)
def moderator_digest_send() -> str:
    """The moderators' digest of new flags (MODERATOR_NOTICES=digest)."""
    return mailing.moderator_digest_send().status


@shared_task(name=ERASE_TASK)
def flag_emails_erase() -> int:
    """Erase the reporters' addresses whose retention has passed."""
    return notices.flag_emails_erase()
