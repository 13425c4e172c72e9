"""Celery wrappers of ``arena.recompute``; a task past its soft limit fails, left to the sweep."""

import logging

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded

from arena import recompute
from arena.models import GIVE_UP_AFTER
from arena.task_names import REFRESH_SOFT_LIMIT, REFRESH_TASK, SWEEP_TASK

log = logging.getLogger(__name__)
GIVEN_UP = "times in a row: given up until its next change (recompute_scores runs it now)"


@shared_task(
    name=REFRESH_TASK,
    bind=True,
    acks_late=True,
    autoretry_for=(Exception,),
    dont_autoretry_for=(SoftTimeLimitExceeded,),
    retry_backoff=2,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=8,
    soft_time_limit=REFRESH_SOFT_LIMIT,
    time_limit=REFRESH_SOFT_LIMIT + 60,
)
def arena_refresh_scores(self: Task, arena_id: int) -> str:
    try:
        return recompute.arena_refresh_scores(arena_id=arena_id)
    except SoftTimeLimitExceeded:
        failures = recompute.arena_recompute_failed(arena_id=arena_id)
        given_up = failures >= GIVE_UP_AFTER
        how = f"{failures} {GIVEN_UP}" if given_up else "it stays stale"
        level = logging.ERROR if given_up else logging.WARNING
        log.log(level, "recomputing arena %s ran past its time limit; %s", arena_id, how)
        raise


@shared_task(name=SWEEP_TASK, soft_time_limit=30, time_limit=60)
def arena_refresh_stale() -> list[int]:
    try:
        return recompute.arena_refresh_stale()
    except SoftTimeLimitExceeded:
        log.warning("the sweep hit its soft time limit; the next one sends the rest")
        return []
