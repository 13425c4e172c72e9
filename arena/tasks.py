"""Celery's wrappers of the recompute layer (``arena.recompute``): each task has the name of the
function it runs, takes ids, and is safe to run twice; the rules live in that function. The HTTP
cache's purge task is in ``ops.tasks``.

Both tasks run under time limits (enforced by the worker's default prefork pool; ``--pool=solo``
ignores them). At the soft limit the task gives up: the recompute's transaction rolls back, the
arena stays marked stale, a warning is logged and the next sweep sends it again (no retry here:
it would only time out once more). The hard limit stops a task that ignores the soft one. Both
stay well below the broker's visibility timeout (600 s), after which Redis would hand a task that
is still running to another worker.
"""

import logging

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded

from arena import recompute
from arena.task_names import REFRESH_TASK, SWEEP_TASK

log = logging.getLogger(__name__)

# One arena's recomputation: 30 × 300 takes well under a second.
REFRESH_SOFT_TIME_LIMIT = 120
REFRESH_TIME_LIMIT = 180
# The sweep only sends one task per stale arena.
SWEEP_SOFT_TIME_LIMIT = 30
SWEEP_TIME_LIMIT = 60

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
    soft_time_limit=REFRESH_SOFT_TIME_LIMIT,
    time_limit=REFRESH_TIME_LIMIT,
)
def arena_refresh_scores(self: Task, arena_id: int) -> str:
    """Recompute one arena's stored scores unless they are already fresh; ``timed out`` (the
    arena left stale for the next sweep) when it hits the soft time limit."""
    try:
        return recompute.arena_refresh_scores(arena_id=arena_id)
    except SoftTimeLimitExceeded:
        log.warning(
            "recomputing arena %s hit the soft time limit; it stays stale, the next sweep retries",
            arena_id,
        )
        return TIMED_OUT


@shared_task(name=SWEEP_TASK, soft_time_limit=SWEEP_SOFT_TIME_LIMIT, time_limit=SWEEP_TIME_LIMIT)
def arena_refresh_stale() -> list[int]:
    """The periodic sweep: send one refresh task per arena still marked stale."""
    try:
        return recompute.arena_refresh_stale()
    except SoftTimeLimitExceeded:
        log.warning("the sweep hit its soft time limit; the next one sends the rest")
        return []
