"""Thin tasks: take ids, call a service, safe to run twice."""

from celery import shared_task
from django.db.models import F

from arena.models import Arena
from arena.services import arena_recompute_scores


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
    """Recompute one arena's stored scores, unless a recomputation already covered every change."""
    # changes from now on enqueue a new task
    Arena.objects.filter(pk=arena_id).update(recompute_enqueued_at=None)
    arena = (
        Arena.objects.filter(pk=arena_id)
        .values("change_seq", "computed_seq", "scores_computed_at")
        .first()
    )
    if arena is None:
        return "gone"
    if arena["scores_computed_at"] is not None and arena["computed_seq"] >= arena["change_seq"]:
        return "fresh"
    arena_recompute_scores(arena_id=arena_id)
    return "recomputed"


@shared_task
def recompute_stale_arenas() -> list[int]:
    """Periodic sweep: recompute every arena still marked stale (e.g. changed while Redis was down)."""
    stale = list(
        Arena.objects.filter(scores_stale_since__isnull=False).values_list("pk", flat=True)
    ) + list(Arena.objects.filter(computed_seq__lt=F("change_seq")).values_list("pk", flat=True))
    done = []
    for arena_id in dict.fromkeys(stale):
        arena_recompute_scores(arena_id=arena_id)
        done.append(arena_id)
    return done
