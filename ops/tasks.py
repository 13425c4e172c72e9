"""Celery's wrapper of the HTTP cache's purge (``ops.purge``), under the name it has always had
(``PURGE_TASK``: a queued task keeps its name across deploys)."""

from celery import Task, shared_task
from django.conf import settings

from arena.task_names import PURGE_TASK
from ops import purge

# A purge retried while the cache is down: 1, 2, 4... seconds, at most a minute apart, for about
# five minutes (beyond that the pages' s-maxage has run out anyway).
PURGE_MAX_RETRIES = 9
PURGE_BACKOFF_MAX = 60


@shared_task(name=PURGE_TASK, bind=True, max_retries=PURGE_MAX_RETRIES)
def http_cache_purge(self: Task, tags: list[str], urls: list[str] | None = None) -> list[str]:
    """Purge ``tags`` at every endpoint of ``HTTP_CACHE_PURGE_URLS`` (or ``urls``); the endpoints
    that failed are tried again, alone, with a growing delay. Returns the endpoints purged."""
    targets = list(settings.HTTP_CACHE_PURGE_URLS if urls is None else urls)
    failed = purge.http_cache_purge(tags, targets)
    if failed:
        delay = min(PURGE_BACKOFF_MAX, 2**self.request.retries)
        raise self.retry(kwargs={"tags": tags, "urls": failed}, countdown=delay)
    return targets
