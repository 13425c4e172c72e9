"""The Celery app: workers plus exactly one beat in production (``worker -B`` is for development);
without CELERY_BROKER_URL tasks run in-process."""

import os

from celery import Celery
from kombu.transport import redis as kombu_redis

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("arena")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


# kombu 5.7 crashes the worker restoring unacknowledged messages over a connection already gone (a
# Redis restart); they come back after the visibility timeout anyway, and the sweep finds the rest.
kombu_redis.QoS.restore_at_shutdown = False

# the request id into queued tasks and the worker's log lines, task failures counted
import config.tasklog  # noqa: E402,F401
