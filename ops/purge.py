"""Purges of the HTTP cache in front (``HTTP_CACHE_PURGE_URLS``): the tags a transaction touched
(``arena.cachetags``) are purged once when it commits, by task when a broker is configured."""

from __future__ import annotations

import logging
import threading
import urllib.error
import urllib.request
from collections.abc import Iterable
from typing import Any

from celery import current_app as celery_app
from django.conf import settings
from django.db import transaction

from arena import cachetags
from arena.task_names import PURGE_TASK
from stories.models import Cell

log = logging.getLogger(__name__)

HEADER = "Surrogate-Key"
TOKEN_HEADER = "X-Purge-Token"


class _Batch:
    def __init__(self) -> None:
        self.arenas: set[int] = set()
        self.cells: set[int] = set()
        self.done = False

    def flush(self) -> None:
        """Purge each arena's tag, each cell's, story's and product's, and ``site``."""
        self.done = True
        tags = [cachetags.arena_tag(a) for a in sorted(self.arenas)]
        rows = Cell.objects.filter(pk__in=self.cells).values_list(
            "pk", "story_id", "story__arena_id", "product__slug"
        )
        for cell_id, story_id, arena_id, product in sorted(rows) if self.cells else ():
            tags += [
                cachetags.cell_tag(cell_id),
                cachetags.story_tag(story_id),
                cachetags.product_tag(arena_id, product),
                cachetags.arena_tag(arena_id),
            ]
        tags = [*dict.fromkeys(tags), cachetags.SITE]
        if settings.CELERY_TASK_ALWAYS_EAGER:  # no broker: once, here
            if failed := http_cache_purge(tags):
                log.warning("could not purge %s at %s", " ".join(tags), ", ".join(failed))
            return
        try:
            celery_app.send_task(PURGE_TASK, args=[tags])
        except Exception:  # noqa: BLE001 - any broker failure; the pages expire with their s-maxage
            log.warning("could not enqueue the purge of %s", " ".join(tags), exc_info=True)


_open = threading.local()  # .batch: this thread's batch


def pages_changed(
    sender: Any, *, arenas: Iterable[int] = (), cells: Iterable[int] = (), **kwargs: Any
) -> None:
    """Purge these arenas' and cells' pages once the transaction commits, once per transaction."""
    if not settings.HTTP_CACHE_PURGE_URLS:
        return
    batch: _Batch | None = getattr(_open, "batch", None)
    # a batch whose transaction committed (done) or rolled back (its hook dropped) is over
    hooks = transaction.get_connection().run_on_commit
    waiting = batch is not None and not batch.done and any(h == batch.flush for _, h, _ in hooks)
    if batch is None or not waiting:
        batch = _open.batch = _Batch()
    batch.arenas.update(arenas)
    batch.cells.update(cells)
    if not waiting:
        transaction.on_commit(batch.flush)  # (at once in autocommit)


def http_cache_purge(tags: list[str], urls: Iterable[str] | None = None) -> list[str]:
    """One purge of ``tags`` to each endpoint (default: all); the endpoints that failed."""
    value = cachetags.header_value(tags)
    headers = {HEADER: value}
    if settings.HTTP_CACHE_PURGE_TOKEN:
        headers[TOKEN_HEADER] = settings.HTTP_CACHE_PURGE_TOKEN
    failed = []
    for url in settings.HTTP_CACHE_PURGE_URLS if urls is None else urls:
        request = urllib.request.Request(
            url, method=settings.HTTP_CACHE_PURGE_METHOD, headers=headers
        )
        try:
            with urllib.request.urlopen(request, timeout=settings.HTTP_CACHE_PURGE_TIMEOUT):
                pass
        except urllib.error.HTTPError as exc:  # the cache answered and said no: say why
            reason = f"HTTP {exc.code} {exc.reason}"
            if exc.code in (401, 403):
                reason += ": HTTP_CACHE_PURGE_TOKEN is missing or not the cache's purge token"
            log.warning("purge of %s at %s refused: %s", value, url, reason)
            failed.append(url)
        # (ValueError: an endpoint that is no URL; an unreachable cache is retried, then warned of)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            log.info("purge of %s at %s failed: %s", value, url, exc)
            failed.append(url)
    return failed
