"""Celery's wrappers of the recompute layer (``arena.recompute``): ids in, the rule lives there."""

from celery import shared_task

from arena.recompute import arena_refresh_scores, arena_refresh_stale


@shared_task(
    bind=True,
    acks_late=True,
    autoretry_for=(Exception,),
    retry_backoff=2,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=8,
)
def recompute_arena_scores(self, arena_id: int) -> str:
    """Recompute one arena's stored scores unless they are already fresh."""
    return arena_refresh_scores(arena_id=arena_id)


@shared_task
def recompute_stale_arenas() -> list[int]:
    """Periodic sweep: recompute every arena still marked stale."""
    return arena_refresh_stale()
