"""The recompute layer sends its task by name: the names it sends must be tasks the worker knows.
The periodic sweep fans out one refresh task per stale arena; the tasks run under time limits."""

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db.models import F

from arena import tasks
from arena.models import Arena, ProductScore
from arena.recompute import arena_recompute_scores, arena_refresh_stale
from arena.task_names import REFRESH_TASK, SWEEP_TASK
from config.celery import app
from flags.task_names import (
    DIGEST_TASK,
    ERASE_TASK,
    NEW_NOTICES_TASK,
    NOTICE_TASK,
    NOTICES_DUE_TASK,
)
from tests.factories import CellFactory


def registered() -> set[str]:
    app.autodiscover_tasks(force=True)  # what a worker finds: every installed app's tasks module
    return set(app.tasks)


def test_the_task_the_recompute_layer_sends_is_registered():
    assert REFRESH_TASK in registered()


def test_the_tasks_the_mail_sends_by_name_are_registered():
    assert {NOTICE_TASK, NEW_NOTICES_TASK, DIGEST_TASK} <= registered()


def test_every_periodic_task_is_registered():
    names = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    # the moderators' digest is scheduled only with MODERATOR_NOTICES=digest (tests/flags)
    assert names == {SWEEP_TASK, NOTICES_DUE_TASK, ERASE_TASK} and names <= registered()


# ---------------------------------------------------------------- the sweep and the time limits


def stale_arenas(n: int) -> list[int]:
    """``n`` small arenas, scored once, then changed behind the recompute's back (stale, nothing
    enqueued: what a broker outage leaves)."""
    ids = []
    for _ in range(n):
        cell = CellFactory()
        CellFactory(story__arena=cell.story.arena, product=cell.product, partial=True)
        arena_recompute_scores(arena_id=cell.story.arena_id)
        ids.append(cell.story.arena_id)
    Arena.objects.filter(pk__in=ids).update(change_seq=F("change_seq") + 1)
    assert set(Arena.objects.stale().values_list("pk", flat=True)) == set(ids)
    return ids


@pytest.fixture
def broker_calls(settings, monkeypatch):
    """A broker that records what is sent to it (the site as configured with CELERY_BROKER_URL)."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    calls: list[tuple[str, list]] = []
    monkeypatch.setattr(app, "send_task", lambda name, args, **kw: calls.append((name, args)))
    return calls


@pytest.mark.django_db
def test_the_sweep_sends_one_refresh_task_per_stale_arena(broker_calls):
    ids = stale_arenas(3)
    assert tasks.arena_refresh_stale.apply().get() == ids
    assert broker_calls == [(REFRESH_TASK, [arena_id]) for arena_id in ids]
    # the sweep itself recomputed nothing: each task will
    assert set(Arena.objects.stale().values_list("pk", flat=True)) == set(ids)


@pytest.mark.django_db
def test_a_broker_failure_stops_the_sweep_round_and_leaves_the_rest_stale(
    settings, monkeypatch, caplog
):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    ids = stale_arenas(3)
    sent = []

    def send_task(name, args, **kwargs):
        if len(sent) == 1:
            raise ConnectionError("broker down")
        sent.append(args[0])

    monkeypatch.setattr(app, "send_task", send_task)
    assert arena_refresh_stale() == ids[:1] == sent
    assert "could not send the recomputation of arena" in caplog.text
    assert set(Arena.objects.stale().values_list("pk", flat=True)) == set(ids)


@pytest.mark.django_db
def test_without_a_broker_the_sweep_refreshes_every_stale_arena_here():
    ids = stale_arenas(3)
    assert arena_refresh_stale() == ids
    assert not Arena.objects.stale().exists()


@pytest.mark.django_db
def test_a_recompute_past_its_soft_time_limit_leaves_the_arena_stale(monkeypatch, caplog):
    (arena_id,) = stale_arenas(1)
    stored = list(ProductScore.objects.values_list("product_id", "pa_score", "computed_at"))

    def slow(*args, **kwargs):  # the worker's signal, arriving in the middle of the recompute
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr("arena.recompute.product_results", slow)
    result = tasks.arena_refresh_scores.apply(args=[arena_id])
    assert result.get() == tasks.TIMED_OUT and result.state == "SUCCESS"  # not retried
    assert "hit the soft time limit" in caplog.text
    assert Arena.objects.stale().filter(pk=arena_id).exists()  # the next sweep retries it
    assert list(ProductScore.objects.values_list("product_id", "pa_score", "computed_at")) == stored


def test_every_task_has_time_limits_below_the_brokers_visibility_timeout():
    visibility = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    for task in (tasks.arena_refresh_scores, tasks.arena_refresh_stale):
        assert 0 < task.soft_time_limit < task.time_limit < visibility, task.name
