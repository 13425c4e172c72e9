"""Mark an arena's scores stale, enqueue their recompute (by task name) on commit, and run it."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Collection
from datetime import timedelta
from itertools import repeat
from typing import Any

from celery import current_app as celery_app
from django.conf import settings
from django.db import connections, models, transaction
from django.db.models import Case, F, Max, Q, When
from django.db.models.functions import Coalesce
from django.utils import timezone

from arena.models import (
    SETTLE_LISTED,
    Arena,
    CacheEpoch,
    CloseCall,
    Persona,
    PersonaResult,
    ProductScore,
    ProductSide,
    SettleCell,
)
from arena.scoring.certainty import Side, close_calls, rank_ranges, side_of, sides
from arena.scoring.ranking import PersonaBest, best_by_persona, leaderboard
from arena.scoring.results import Part, ProductResult, product_results
from arena.scoring.tally import ProductKey, Tally
from arena.selectors.inputs import arena_scoring_inputs
from arena.signals import pages_changed
from arena.task_names import REFRESH_SOFT_LIMIT, REFRESH_TASK
from products.models import Product
from stories.models import Story

log = logging.getLogger(__name__)

# what a ``ProductScore`` keeps of a result under the result's own names, beside its tally
STORED = ("pa_score", "category_scores", "persona_scores", "parts", "persona_ranges")


def arena_content_changed(*, arena_id: int, **signal: Any) -> None:
    """Bump the page cache's and ETags' version, in the change's transaction; a signal receiver."""
    Arena.objects.filter(pk=arena_id).update(content_version=F("content_version") + 1)
    pages_changed.send(None, arenas=[arena_id])


def cell_content_changed(*, cell_id: int, arena_id: int | None = None) -> None:
    """``arena_content_changed`` for a cell's arena (``arena_id`` if read already): one UPDATE."""
    if arena_id is None:
        arena = Story.objects.filter(cells__pk=cell_id).order_by().values("arena_id")[:1]
        Arena.objects.filter(pk__in=arena).update(content_version=F("content_version") + 1)
    else:
        Arena.objects.filter(pk=arena_id).update(content_version=F("content_version") + 1)
    pages_changed.send(None, cells=[cell_id])


def _has_table(model: type[models.Model], using: str) -> bool:
    return model._meta.db_table in connections[using].introspection.table_names()


def content_versions_served(*, using: str) -> int:
    """The highest content version of the database (0 with no arena): read before a restore."""
    if not _has_table(Arena, using):
        return 0
    return Arena.objects.using(using).aggregate(top=Max("content_version"))["top"] or 0


def content_restored(*, past: int, using: str) -> str | None:
    """After a restore: lift versions above ``past``; the cache's new epoch (None: no table)."""
    epoch = secrets.token_hex(8) if _has_table(CacheEpoch, using) else None
    with transaction.atomic(using=using):
        if _has_table(Arena, using):  # (a backup of an older schema, before its migrate)
            Arena.objects.using(using).update(content_version=F("content_version") + past + 1)
        if epoch is not None:
            CacheEpoch.objects.using(using).update_or_create(pk=1, defaults={"value": epoch})
    return epoch


def arena_mark_stale(*, arena_id: int, product_id: int | None = None, **signal: Any) -> None:
    """Mark the scores (of one product) stale and recompute on commit: ``scores_changed``."""
    Arena.objects.filter(pk=arena_id).update(  # first: it waits for a recompute's lock
        change_seq=F("change_seq") + 1,
        scores_stale_since=Coalesce(F("scores_stale_since"), timezone.now()),
        content_version=F("content_version") + 1,
    )
    sides = ProductSide.objects.filter(product__arena_id=arena_id)
    (sides if product_id is None else sides.filter(product_id=product_id)).update(stale=True)
    pages_changed.send(None, arenas=[arena_id])
    transaction.on_commit(lambda: _enqueue(arena_id))


def _enqueue(arena_id: int) -> None:
    """Send the recompute task once per wait (debounced); a broker down leaves it to the sweep."""
    now = timezone.now()
    if not settings.CELERY_TASK_ALWAYS_EAGER:
        expired = now - timedelta(seconds=settings.RECOMPUTE_DEBOUNCE_SECONDS + REFRESH_SOFT_LIMIT)
        waiting = Q(recompute_enqueued_at__isnull=True) | Q(recompute_enqueued_at__lt=expired)
        if not Arena.objects.filter(waiting, pk=arena_id).update(recompute_enqueued_at=now):
            return
    if not _send(arena_id, countdown=settings.RECOMPUTE_DEBOUNCE_SECONDS):
        Arena.objects.filter(pk=arena_id, recompute_enqueued_at=now).update(
            recompute_enqueued_at=None
        )


def _send(arena_id: int, countdown: float | None = None) -> bool:
    """Send the refresh task (without a broker: refresh here); False when the broker failed."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        arena_refresh_scores(arena_id=arena_id)
        return True
    try:
        celery_app.send_task(REFRESH_TASK, args=[arena_id], countdown=countdown)
    except Exception:  # noqa: BLE001 - any broker failure; the (next) sweep catches up
        log.warning("could not send the recomputation of arena %s", arena_id, exc_info=True)
        return False
    return True


def arena_recompute_scores(*, arena_id: int, every: bool = False) -> bool:
    """Store the arena's scores (False: it is gone); unless ``every``, redo only stale products."""
    with transaction.atomic():
        if (arena := Arena.objects.select_for_update().filter(pk=arena_id).first()) is None:
            return False
        listed = Product.objects.filter(arena_id=arena_id)  # (not retired)
        scores = ProductScore.objects.filter(product__in=listed, product__side__stale=False)
        kept = {} if every else {s.product_id: s for s in scores}
        inputs = arena_scoring_inputs(arena_id=arena_id, kept=kept)
        redone = [p for p in inputs.products if p[0] not in kept]
        fresh = {r.product: r for r in product_results(redone, inputs.stories, inputs.cells)}
        results = [fresh.get(key) or _stored(kept[key], name) for key, name in inputs.products]
        board = leaderboard(results)
        now = timezone.now()
        spans = rank_ranges([(row.result.product, row.result.pa_range) for row in board])
        ProductScore.objects.filter(arena_id=arena_id).delete()
        ProductScore.objects.bulk_create(
            ProductScore(
                arena_id=arena_id,
                product_id=r.product,
                rank=row.rank,
                vs_id=row.vs,
                computed_at=kept[r.product].computed_at if r.product in kept else now,
                pa_low=r.pa_range[0] if r.pa_range else None,
                pa_high=r.pa_range[1] if r.pa_range else None,
                rank_best=span[0] if (span := spans[r.product]) else None,
                rank_worst=span[1] if span else None,
                integrity=r.tally.integrity,
                confidence=r.tally.confidence,
                **{f: getattr(r, f) for f in STORED},
                **r.tally._asdict(),
            )
            for row in board
            for r in (row.result,)
        )
        _store_persona_results(arena_id, best_by_persona(inputs.stories, results))
        redone_sides = sides(list(fresh.values()), inputs.stories, inputs.cells)
        by_side = _sides(arena_id, results, kept, inputs.cell_ids, redone_sides)
        only = set(fresh) if kept else None  # (None: every close call is redone)
        calls = close_calls([row.result for row in board], by_side, only)
        _store_close_calls(arena_id, calls, inputs.cell_ids, only)
        Arena.objects.filter(pk=arena_id).update(
            scores_computed_at=now,
            computed_seq=arena.change_seq,
            content_version=F("content_version") + 1,
            scores_stale_since=None,  # (the arena's lock holds back any change meanwhile)
            recompute_failures=0,
        )
        pages_changed.send(None, arenas=[arena_id])
    return True


def _stored(row: ProductScore, name: str) -> ProductResult:
    """The result a stored row was written from."""
    low, high, ranges = row.pa_low, row.pa_high, row.persona_ranges
    return ProductResult(
        **{f: getattr(row, f) for f in ("pa_score", "category_scores", "persona_scores")},
        product=row.product_id,
        name=name,
        tally=Tally(**{f: getattr(row, f) for f in Tally._fields}),
        parts=tuple(Part(*p) for p in row.parts),
        pa_range=None if low is None or high is None else (low, high),
        persona_ranges={k: tuple(v) if v else None for k, v in ranges.items()},
    )


def _sides(
    arena_id: int, results: list[ProductResult], kept: Collection[int], ids: dict, fresh: dict
) -> dict[ProductKey, Side]:
    """Store the ``fresh`` sides; read the ``kept`` products' (their cells' ids into ``ids``)."""
    ProductSide.objects.filter(product__arena_id=arena_id).exclude(product_id__in=kept).delete()
    ProductSide.objects.bulk_create(
        ProductSide(
            product_id=key,
            raise_low=[[g for g, _ in up], [k[0] for _, k in up], [ids[k] for _, k in up]],
            cut_high=[[g for g, _ in down], [k[0] for _, k in down], [ids[k] for _, k in down]],
        )
        for key, side in fresh.items()
        for up, down in ((side.raise_low, side.cut_high),)
    )
    by_key = {r.product: r for r in results}
    for row in ProductSide.objects.filter(product_id__in=kept):
        stored = []
        for gains, stories, cells in (row.raise_low, row.cut_high):
            keys = list(zip(stories, repeat(row.product_id)))
            ids.update(zip(keys, cells, strict=True))
            stored.append(tuple(zip(gains, keys, strict=True)))
        fresh[row.product_id] = side_of(by_key[row.product_id], *stored)
    return fresh


def _store_close_calls(
    arena_id: int, calls: list[dict[str, Any]], ids: dict, only: set[ProductKey] | None
) -> None:
    """Replace the close calls (of ``only``'s products) and their first ``SETTLE_LISTED`` cells."""
    old = CloseCall.objects.filter(arena_id=arena_id)
    if only is not None:
        old = old.filter(Q(leader_id__in=only) | Q(trailer_id__in=only))
    SettleCell.objects.filter(call__in=old).delete()
    old.delete()
    rows = CloseCall.objects.bulk_create(
        CloseCall(
            arena_id=arena_id,
            leader_id=c["a"],
            trailer_id=c["b"],
            settle_count=len(c["settle"]),
            exact=c["exact"],
        )
        for c in calls
    )
    SettleCell.objects.bulk_create(
        SettleCell(call=row, cell_id=ids[key], position=i)
        for row, c in zip(rows, calls, strict=True)
        for i, key in enumerate(c["settle"][:SETTLE_LISTED])
    )


def _store_persona_results(arena_id: int, best: list[PersonaBest]) -> None:
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
    """Recompute unless fresh: ``gone``, ``fresh`` or ``recomputed``; later changes re-enqueue."""
    if not Arena.objects.filter(pk=arena_id).update(recompute_enqueued_at=None):
        return "gone"
    if not Arena.objects.stale().filter(pk=arena_id).exists():
        return "fresh"
    arena_recompute_scores(arena_id=arena_id)
    return "recomputed"


def arena_recompute_failed(*, arena_id: int) -> int:
    """Count a recompute of the arena's current change that did not finish: how many in a row."""
    arena, same = Arena.objects.filter(pk=arena_id), Q(recompute_failed_seq=F("change_seq"))
    count = Case(When(same, then=F("recompute_failures") + 1), default=1)
    arena.update(recompute_failures=count, recompute_failed_seq=F("change_seq"))
    return arena.values_list("recompute_failures", flat=True).first() or 0


def arena_refresh_stale() -> list[int]:
    """The periodic sweep: a refresh task per stale arena not given up on, till the broker fails."""
    sent = []
    waiting = Arena.objects.stale().exclude(pk__in=Arena.objects.given_up().values("pk"))
    for arena_id in waiting.order_by("pk").values_list("pk", flat=True):
        if not _send(arena_id):
            break
        sent.append(arena_id)
    return sent
