"""Purges of the HTTP cache in front of the site (Varnish, a CDN): every change that moves a content
version (``arena.recompute``) names the content it touched here, and once the transaction commits
one purge of exactly those tags (``arena.cachetags``) is sent, by task name, to every endpoint of
``HTTP_CACHE_PURGE_URLS`` (nothing at all when it is empty).

The tags of one transaction are gathered and sent once (a correction bumps the version several
times); a transaction rolled back sends nothing. Without a broker the purge is sent in-process, once; with one, the task retries a cache
that is down with a growing delay (``ops.tasks.http_cache_purge``, queued as ``PURGE_TASK``). A purge that never arrives
leaves pages stale only until their ``s-maxage`` runs out: the cache is an optimisation, never
the record. ``manage.py restore`` bans everything, at once: ``http_cache_purge([cachetags.ALL])``.
"""

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
    """The names one transaction has touched, purged once when it commits."""

    def __init__(self) -> None:
        self.arenas: set[int] = set()
        self.cells: set[int] = set()
        self.done = False

    def flush(self) -> None:
        self.done = True
        _send(purge_tags(arenas=self.arenas, cells=self.cells))


class _Open(threading.local):
    batch: _Batch | None = None


_open = _Open()


def pages_changed(sender: Any, *, arenas: list[int], cells: list[int], **kwargs: Any) -> None:
    """``arena.signals.pages_changed``: purge those pages once the change commits."""
    purge_after_commit(arenas=arenas, cells=cells)


def purge_after_commit(*, arenas: Iterable[int] = (), cells: Iterable[int] = ()) -> None:
    """Purge the pages of these arenas (every page of theirs, and the site-wide ones) and cells
    (their page, their story's and product's, their arena's) once the surrounding transaction
    commits (at once outside one); one purge per transaction, however many changes it makes."""
    if not settings.HTTP_CACHE_PURGE_URLS:
        return
    connection = transaction.get_connection()
    batch = _open.batch
    # a batch whose transaction committed (done) or rolled back (its callback dropped) is over
    if batch is None or batch.done or not _waiting(connection.run_on_commit, batch):
        batch = _open.batch = _Batch()
        batch.arenas.update(arenas)
        batch.cells.update(cells)
        transaction.on_commit(batch.flush)  # (at once in autocommit)
        return
    batch.arenas.update(arenas)
    batch.cells.update(cells)


def _waiting(callbacks: list[tuple[Any, Any, Any]], batch: _Batch) -> bool:
    return any(callback == batch.flush for _, callback, _ in callbacks)


def _send(tags: list[str]) -> None:
    if settings.CELERY_TASK_ALWAYS_EAGER:  # no broker: once, here
        failed = http_cache_purge(tags)
        if failed:
            log.warning("could not purge %s at %s", " ".join(tags), ", ".join(failed))
        return
    try:
        celery_app.send_task(PURGE_TASK, args=[tags])
    except Exception:  # noqa: BLE001 - any broker failure; the pages expire with their s-maxage
        log.warning("could not enqueue the purge of %s", " ".join(tags), exc_info=True)


def purge_tags(*, arenas: Iterable[int] = (), cells: Iterable[int] = ()) -> list[str]:
    """The tags to purge for a change of these arenas and cells: each arena's tag and ``site``
    (the site-wide pages show every arena), and each cell's, story's and product's (one query)."""
    tags = [cachetags.arena_tag(a) for a in sorted(arenas)]
    rows = Cell.objects.filter(pk__in=cells).values_list(
        "pk", "story_id", "story__arena_id", "product__slug"
    )
    for cell_id, story_id, arena_id, product in sorted(rows) if cells else ():
        tags += [
            cachetags.cell_tag(cell_id),
            cachetags.story_tag(story_id),
            cachetags.product_tag(arena_id, product),
            cachetags.arena_tag(arena_id),
        ]
    return [*dict.fromkeys(tags), cachetags.SITE]


def http_cache_purge(tags: list[str], urls: Iterable[str] | None = None) -> list[str]:
    """Send one purge of ``tags`` to each endpoint (``urls``, by default every one of
    ``HTTP_CACHE_PURGE_URLS``); returns the endpoints that failed (unreachable, or not a 2xx)."""
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
            log.warning("purge of %s at %s refused: %s", value, url, _refusal(exc))
            failed.append(url)
        # (ValueError: an endpoint that is no URL; an unreachable cache is retried, then warned of)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            log.info("purge of %s at %s failed: %s", value, url, exc)
            failed.append(url)
    return failed


def _refusal(exc: urllib.error.HTTPError) -> str:
    reason = f"HTTP {exc.code} {exc.reason}"
    if exc.code in (401, 403):
        return f"{reason}: HTTP_CACHE_PURGE_TOKEN is missing or not the cache's purge token"
    return reason
