"""Celery's wrappers of ``arena.recompute``, registered under ``arena.task_names``. At the soft
time limit a task gives up (no retry): the arena stays stale for the next sweep. Both limits stay
below the broker's visibility timeout (CELERY_BROKER_TRANSPORT_OPTIONS), past which Redis hands a
running task out again."""

import logging

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded

from arena import recompute
from arena.task_names import REFRESH_SOFT_LIMIT, REFRESH_TASK, SWEEP_TASK

log = logging.getLogger(__name__)

TIMED_OUT = "timed out"


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
        log.warning("recomputing arena %s hit the soft time limit; it stays stale", arena_id)
        return TIMED_OUT


@shared_task(name=SWEEP_TASK, soft_time_limit=30, time_limit=60)
def arena_refresh_stale() -> list[int]:
    try:
        return recompute.arena_refresh_stale()
    except SoftTimeLimitExceeded:
        log.warning("the sweep hit its soft time limit; the next one sends the rest")
        return []
