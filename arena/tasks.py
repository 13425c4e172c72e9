"""Celery's wrappers of the recompute layer (``arena.recompute``): each task has the name of the
function it runs, takes ids, and is safe to run twice; the rules live in that function."""

from celery import Task, shared_task

from arena import recompute
from arena.task_names import REFRESH_TASK, SWEEP_TASK


@shared_task(
    name=REFRESH_TASK,
    bind=True,
    acks_late=True,
    autoretry_for=(Exception,),
    retry_backoff=2,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=8,
)
def arena_refresh_scores(self: Task, arena_id: int) -> str:
    """Recompute one arena's stored scores unless they are already fresh."""
    return recompute.arena_refresh_scores(arena_id=arena_id)


@shared_task(name=SWEEP_TASK)
def arena_refresh_stale() -> list[int]:
    """The periodic sweep: recompute every arena still marked stale."""
    return recompute.arena_refresh_stale()
