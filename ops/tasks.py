"""Celery's wrapper of ``ops.purge`` (``PURGE_TASK``: a queued task keeps its name)."""

from celery import Task, shared_task
from django.conf import settings

from arena.task_names import PURGE_TASK
from ops import purge

# 1, 2, 4... seconds, at most a minute apart: about five minutes, when s-maxage has run out anyway
PURGE_MAX_RETRIES = 9
PURGE_BACKOFF_MAX = 60


@shared_task(name=PURGE_TASK, bind=True, max_retries=PURGE_MAX_RETRIES)
def http_cache_purge(self: Task, tags: list[str], urls: list[str] | None = None) -> list[str]:
    """Purge ``tags``; the endpoints that failed are retried alone. The endpoints purged."""
    targets = list(settings.HTTP_CACHE_PURGE_URLS if urls is None else urls)
    failed = purge.http_cache_purge(tags, targets)
    if failed:
        delay = min(PURGE_BACKOFF_MAX, 2**self.request.retries)
        raise self.retry(kwargs={"tags": tags, "urls": failed}, countdown=delay)
    return targets
