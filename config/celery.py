"""The Celery app. In production, two kinds of process: workers (``celery -A arena worker``, as many
as needed, never with ``-B``) and exactly one scheduler (``celery -A arena beat``), which sends the
periodic sweep. ``worker -B`` (the scheduler inside a worker) is for development and tests only:
with two such workers every sweep is sent twice.

Without ``CELERY_BROKER_URL`` tasks run in-process (``task_always_eager``), so the site needs no Redis.
"""

import os

from celery import Celery
from kombu.transport import redis as kombu_redis

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("arena")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def _no_restore_on_lost_connection() -> None:
    """kombu 5.7's Redis transport crashes the worker when it tries to restore unacknowledged
    messages over a connection that is already gone (``'NoneType' object has no attribute
    'hostname'`` in ``_connparams``), so a Redis restart would kill the worker. We do not rely on
    that restore: unacknowledged messages come back after the visibility timeout, and every change
    is also marked stale in the database, where the periodic sweep finds it."""
    kombu_redis.QoS.restore_at_shutdown = False


_no_restore_on_lost_connection()

# the request id into queued tasks and the worker's log lines, task failures counted
import config.tasklog  # noqa: E402,F401
