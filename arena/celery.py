"""The Celery app: ``celery -A arena worker -B``.

Without ``CELERY_BROKER_URL`` tasks run in-process (``task_always_eager``), so the site needs no Redis.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

app = Celery("arena")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
