"""The recompute layer sends its task by name: the names it sends must be tasks the worker knows."""

from django.conf import settings

import arena.tasks  # noqa: F401 - what the worker's autodiscovery imports
from arena.celery import app
from arena.task_names import REFRESH_TASK, SWEEP_TASK


def registered() -> set[str]:
    return set(app.tasks)


def test_the_task_the_recompute_layer_sends_is_registered():
    assert REFRESH_TASK in registered()


def test_every_periodic_task_is_registered():
    names = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert names == {SWEEP_TASK} and names <= registered()
