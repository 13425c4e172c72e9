"""The bottom layer every write stands on: mark an arena's stored scores stale, enqueue their
recomputation, and recompute them; every move of an arena's content version also purges the HTTP
cache in front (``ops.purge``) once it commits.

Services call ``arena_mark_stale`` inside their transaction; the recomputation is sent once the
transaction commits, by task name (this module must not import the tasks that wrap it). The task and
the periodic sweep are thin wrappers of ``arena_refresh_scores`` and ``arena_refresh_stale``, which
hold the freshness rule; the sweep sends one refresh task per stale arena. Depends only on models and the pure scoring module.
"""

from __future__ import annotations

import logging
import secrets
from datetime import datetime, timedelta
from typing import Any

from celery import current_app as celery_app
from django.conf import settings
from django.db import connections, models, transaction
from django.db.models import F, Max, Q
from django.db.models.functions import Coalesce
from django.utils import timezone

from arena import scoring
from arena.models import Arena, CacheEpoch, Persona, PersonaResult, ProductScore
from arena.selectors.inputs import ArenaInputs, arena_scoring_inputs
from arena.signals import purge_after_commit
from arena.task_names import REFRESH_TASK
from stories.models import Story

log = logging.getLogger(__name__)


def arena_content_changed(*, arena_id: int) -> None:
    """Record that something the arena's pages show has changed (a rationale, a product's name, a
    score...): bumps its ``content_version``, which the page cache and the pages' ETags are keyed by.
    Call it inside the transaction that makes the change, so that no reader sees the change under
    the old version. The HTTP cache in front drops the arena's pages once it commits."""
    Arena.objects.filter(pk=arena_id).update(content_version=F("content_version") + 1)
    purge_after_commit(arenas=[arena_id])


def cell_content_changed(*, cell_id: int) -> None:
    """``arena_content_changed`` for the arena of a cell, known only by its id (a flag filed on
    it, a dispute decided): one UPDATE, the arena found by a subquery."""
    arena = Story.objects.filter(cells__pk=cell_id).values("arena_id")[:1]
    Arena.objects.filter(pk__in=arena).update(content_version=F("content_version") + 1)
    purge_after_commit(cells=[cell_id])


def _has_table(model: type[models.Model], using: str) -> bool:
    with connections[using].cursor() as cursor:
        return model._meta.db_table in connections[using].introspection.table_names(cursor)


def content_versions_served(*, using: str) -> int:
    """The highest content version of the database (0 when it has no arenas, or no arena table):
    read before a restore replaces it, as the value the restored versions must move past."""
    if not _has_table(Arena, using):
        return 0
    found = Arena.objects.using(using).aggregate(top=Max("content_version"))["top"]
    return found or 0


def content_restored(*, past: int, using: str) -> str | None:
    """After a restore: in one transaction, move every arena's content version above ``past``, and give the page cache a new epoch;
    returns the epoch (None: a backup older than the epoch's table, whose ``migrate`` makes one
    anew). The versions then never repeat one the replaced database served (its highest
    was above any served before it, by the same rule), for what keeps them in memory (the stale
    counts); the epoch covers what the versions cannot: an arena or cell made after the restore
    takes an id of the discarded timeline again, with versions from 0."""
    epoch = secrets.token_hex(8) if _has_table(CacheEpoch, using) else None
    with transaction.atomic(using=using):
        if _has_table(Arena, using):  # (a backup of an older schema, before its migrate)
            Arena.objects.using(using).update(content_version=F("content_version") + past + 1)
        if epoch is not None:
            CacheEpoch.objects.using(using).update_or_create(pk=1, defaults={"value": epoch})
    return epoch


def arena_mark_stale(*, arena_id: int) -> None:
    """Record that the arena's stored scores are out of date, and schedule their recomputation once
    the surrounding transaction commits (immediately, in-process, when no broker is configured).
    A score-moving change is a content change too: the version is bumped in the same statement."""
    Arena.objects.filter(pk=arena_id).update(
        change_seq=F("change_seq") + 1,
        scores_stale_since=Coalesce(F("scores_stale_since"), timezone.now()),
        content_version=F("content_version") + 1,
    )
    purge_after_commit(arenas=[arena_id])
    transaction.on_commit(lambda: arena_enqueue_recompute(arena_id=arena_id))


def arena_enqueue_recompute(*, arena_id: int) -> bool:
    """Send the recompute task; a broker that is down is logged, not raised: the arena stays marked
    stale in the database and the periodic sweep recomputes it once the broker is back.

    Debounced through the database: while a task for this arena waits in the queue
    (``recompute_enqueued_at`` set), further changes enqueue nothing; the task clears the mark when
    it starts, so a change after that enqueues a new one.
    """
    if settings.CELERY_TASK_ALWAYS_EAGER:  # no broker: recompute in-process, at once
        arena_refresh_scores(arena_id=arena_id)
        return True
    now = timezone.now()
    expired = now - timedelta(seconds=settings.RECOMPUTE_DEBOUNCE_SECONDS + 120)
    claimed = (
        Arena.objects.filter(pk=arena_id)
        .filter(Q(recompute_enqueued_at__isnull=True) | Q(recompute_enqueued_at__lt=expired))
        .update(recompute_enqueued_at=now)
    )
    if not claimed:
        return True
    try:
        celery_app.send_task(
            REFRESH_TASK, args=[arena_id], countdown=settings.RECOMPUTE_DEBOUNCE_SECONDS
        )
    except Exception:  # noqa: BLE001 - any broker failure; the sweep catches up
        Arena.objects.filter(pk=arena_id, recompute_enqueued_at=now).update(
            recompute_enqueued_at=None
        )
        log.warning(
            "could not enqueue the recomputation of arena %s; the sweep will",
            arena_id,
            exc_info=True,
        )
        return False
    return True


def arena_recompute_scores(*, arena_id: int) -> bool:
    """Recompute and store every score of the arena. Idempotent: the same inputs store the same
    scores. Returns False when the arena no longer exists."""
    with transaction.atomic():
        arena = Arena.objects.select_for_update().filter(pk=arena_id).first()
        if arena is None:
            return False
        seq = arena.change_seq
        inputs = arena_scoring_inputs(arena_id=arena_id)
        results = scoring.product_results(inputs.products, inputs.stories, inputs.cells)
        now = timezone.now()
        board = scoring.leaderboard(results)
        _store_scores(arena_id, board, now)
        _store_persona_results(arena_id, scoring.best_by_persona(inputs.stories, results))
        Arena.objects.filter(pk=arena_id).update(
            scores_computed_at=now,
            computed_seq=seq,
            close_calls=_close_calls(inputs, [row.result for row in board]),
            content_version=F("content_version") + 1,
        )
        purge_after_commit(arenas=[arena_id])
        # Only a recompute that saw the newest change clears the stale mark.
        Arena.objects.filter(pk=arena_id, change_seq=seq).update(scores_stale_since=None)
    return True


def _store_scores(arena_id: int, board: list[scoring.RankedResult], now: datetime) -> None:
    """Replace the arena's leaderboard rows by ``board`` (``scoring.leaderboard``), each with the
    ranks it could take (``scoring.rank_ranges``)."""
    spans = scoring.rank_ranges([(row.result.product, row.result.pa_range) for row in board])
    ProductScore.objects.filter(arena_id=arena_id).delete()
    ProductScore.objects.bulk_create(
        ProductScore(
            arena_id=arena_id,
            rank=row.rank,
            vs_id=row.vs,
            computed_at=now,
            rank_best=span[0] if (span := spans[row.result.product]) else None,
            rank_worst=span[1] if span else None,
            **row.result.stored(),
        )
        for row in board
    )


def _close_calls(inputs: ArenaInputs, board: list[scoring.ProductResult]) -> list[dict[str, Any]]:
    """The arena's close calls as ``Arena.close_calls`` stores them, each settle set by cell id."""
    return [
        {
            "a": call.a,
            "b": call.b,
            "settle": [inputs.cell_ids[key] for key in call.settle],
            "exact": call.exact,
        }
        for call in scoring.close_calls(board, inputs.stories, inputs.cells)
    ]


def _store_persona_results(arena_id: int, best: list[scoring.PersonaBest]) -> None:
    """Replace the arena's "best by user type" rows, in the order of the personas' slugs."""
    personas = dict(Persona.objects.values_list("slug", "id"))
    PersonaResult.objects.filter(arena_id=arena_id).delete()
    PersonaResult.objects.bulk_create(
        PersonaResult(
            arena_id=arena_id,
            persona_id=personas[b.persona],
            story_count=b.story_count,
            winner_id=b.winner,
            winner_score=b.winner_score,
            runner_up_id=b.runner_up,
            runner_up_score=b.runner_up_score,
            position=i,
        )
        for i, b in enumerate(sorted(best, key=lambda b: b.persona))
    )


def arena_refresh_scores(*, arena_id: int) -> str:
    """Recompute one arena's stored scores unless a recomputation already covered every change
    (the freshness rule). Safe to run twice; returns ``gone``, ``fresh`` or ``recomputed``."""
    # changes from now on enqueue a new task
    Arena.objects.filter(pk=arena_id).update(recompute_enqueued_at=None)
    if not Arena.objects.filter(pk=arena_id).exists():
        return "gone"
    if not Arena.objects.stale().filter(pk=arena_id).exists():
        return "fresh"
    arena_recompute_scores(arena_id=arena_id)
    return "recomputed"


def arena_refresh_stale() -> list[int]:
    """The periodic sweep: one refresh task per arena still marked stale (changed while the broker
    was down, or whose task was lost with a killed worker), sent by name, so that the workers share
    them, a slow arena holds up no other, and each runs under the refresh task's time limits. Sent
    whether or not a task is already queued for the arena (that one may be lost): a duplicate finds
    the arena fresh and does nothing. Without a broker they run here, one after another.
    Returns the ids it sent (refreshed, without a broker); a broker that fails is logged and
    stops the round, the next sweep tries again."""
    stale = list(Arena.objects.stale().order_by("pk").values_list("pk", flat=True))
    if settings.CELERY_TASK_ALWAYS_EAGER:
        for arena_id in stale:
            arena_refresh_scores(arena_id=arena_id)
        return stale
    sent = []
    for arena_id in stale:
        try:
            celery_app.send_task(REFRESH_TASK, args=[arena_id])
        except Exception:  # noqa: BLE001 - any broker failure; the next sweep retries
            log.warning(
                "the sweep could not send the recomputation of arena %s; the next sweep will",
                arena_id,
                exc_info=True,
            )
            break
        sent.append(arena_id)
    return sent
