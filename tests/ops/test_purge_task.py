"""The purge's Celery task moved to ``ops.tasks`` under the name it was queued by before: a task
already in the broker when a deploy lands still finds its worker."""

from arena.task_names import PURGE_TASK
from config.celery import app
from ops import tasks


def test_the_purge_task_is_registered_under_its_published_name():
    app.autodiscover_tasks(force=True)  # what a worker finds: every installed app's tasks module
    assert PURGE_TASK == "arena.tasks.http_cache_purge"
    assert app.tasks[PURGE_TASK].__module__ == tasks.__name__ == "ops.tasks"
