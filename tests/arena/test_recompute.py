"""The recompute layer sends its task by name: the names it sends must be tasks the worker knows.
The periodic sweep fans out one refresh task per stale arena; the tasks run under time limits."""

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db.models import F

from arena import tasks
from arena.models import GIVE_UP_AFTER, Arena, ProductScore
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


def past_the_limit(*args, **kwargs):  # the worker's signal, arriving in the middle of a recompute
    raise SoftTimeLimitExceeded()


@pytest.mark.django_db
def test_a_recompute_past_its_soft_time_limit_fails_and_leaves_the_arena_stale(monkeypatch, caplog):
    (arena_id,) = stale_arenas(1)
    stored = list(ProductScore.objects.values_list("product_id", "pa_score", "computed_at"))
    monkeypatch.setattr("arena.recompute.product_results", past_the_limit)
    result = tasks.arena_refresh_scores.apply(args=[arena_id], throw=False)
    # failed, not retried (a retry would have been its state)
    assert result.state == "FAILURE" and isinstance(result.result, SoftTimeLimitExceeded)
    assert "ran past its time limit; it stays stale" in caplog.text
    assert Arena.objects.stale().filter(pk=arena_id).exists()  # the next sweep retries it
    assert list(ProductScore.objects.values_list("product_id", "pa_score", "computed_at")) == stored
    assert Arena.objects.filter(pk=arena_id).values_list("recompute_failures", flat=True)[0] == 1


@pytest.mark.django_db
def test_the_sweep_gives_up_a_change_that_failed_three_times_until_the_next_change(
    monkeypatch, caplog, settings
):
    settings.CELERY_TASK_ALWAYS_EAGER = False  # (a broker: the sweep sends, nothing runs here)
    sent: list[int] = []
    monkeypatch.setattr(app, "send_task", lambda name, args, **kw: sent.append(args[0]))
    stuck, other = stale_arenas(2)
    monkeypatch.setattr("arena.recompute.product_results", past_the_limit)
    for _ in range(GIVE_UP_AFTER):
        assert arena_refresh_stale()[0] == stuck  # sent again after each failure
        assert tasks.arena_refresh_scores.apply(args=[stuck], throw=False).state == "FAILURE"
    assert f"recomputing arena {stuck} ran past its" in caplog.text
    assert f"{GIVE_UP_AFTER} times in a row: given up until its next change" in caplog.text
    assert [r.levelname for r in caplog.records if "given up" in r.getMessage()] == ["ERROR"]
    # left out, and still stale for the pages; the other arena is still sent
    assert arena_refresh_stale() == [other]
    assert list(Arena.objects.given_up().values_list("pk", flat=True)) == [stuck]
    assert Arena.objects.stale().filter(pk=stuck).exists()
    # its next change is tried again, and a recompute that finishes starts the count afresh
    Arena.objects.filter(pk=stuck).update(change_seq=F("change_seq") + 1)
    assert arena_refresh_stale() == [stuck, other]
    monkeypatch.undo()
    assert tasks.arena_refresh_scores.apply(args=[stuck]).get() == "recomputed"
    assert Arena.objects.filter(pk=stuck).values_list("recompute_failures", flat=True)[0] == 0


def test_every_task_has_time_limits_below_the_brokers_visibility_timeout():
    visibility = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    for task in (tasks.arena_refresh_scores, tasks.arena_refresh_stale):
        assert 0 < task.soft_time_limit < task.time_limit < visibility, task.name
