"""With a broker, the new notices of a second go out in one task from each process: its timing,
what it sends, and a refused publish. The whole path through a real broker and worker is
tests/integration/test_mail_worker.py."""

from __future__ import annotations

import json

import pytest
from celery import current_app as celery_app
from django.test import Client

from flags import mailing
from flags.models import Notice
from flags.task_names import NEW_NOTICES_TASK
from tests.factories import CellFactory, ModeratorFactory
from tests.flags.test_notices import EXPLANATION, REPORTER, smtp  # noqa: F401 - a fixture


@pytest.fixture
def sent(monkeypatch) -> list[tuple[str, dict]]:
    """The tasks published, by name and options (the broker itself: the worker tests)."""
    published: list[tuple[str, dict]] = []
    monkeypatch.setattr(
        celery_app, "send_task", lambda name, **options: published.append((name, options))
    )
    return published


def test_a_process_sends_one_task_a_window_and_it_runs_after_the_window(sent):
    kicks = mailing.Kicks(seconds=60)
    kicks.kick()
    kicks.kick()
    assert sent == [(NEW_NOTICES_TASK, {"countdown": 120})]
    kicks.forget()
    kicks.kick()
    assert len(sent) == 2
    every_time = mailing.Kicks(seconds=0)
    every_time.kick()
    every_time.kick()
    assert len(sent) == 4


def test_a_refused_task_leaves_the_next_commit_to_send_it(monkeypatch, caplog):
    calls: list[str] = []

    def refuse_once(name: str, **options: object) -> None:
        calls.append(name)
        if len(calls) == 1:
            raise ConnectionError("the broker is down")

    monkeypatch.setattr(celery_app, "send_task", refuse_once)
    kicks = mailing.Kicks(seconds=60)
    kicks.kick()
    assert "not queued; the sweep will send them" in caplog.text
    kicks.kick()
    kicks.kick()
    assert calls == [NEW_NOTICES_TASK] * 2


@pytest.mark.django_db
def test_flags_filed_at_once_share_one_task(sent, settings, django_capture_on_commit_callbacks):
    settings.CELERY_TASK_ALWAYS_EAGER = False  # as with a broker
    for n in range(3):
        body = {"cell": CellFactory.create().pk, "reason": "other", "explanation": EXPLANATION}
        with django_capture_on_commit_callbacks(execute=True):
            response = Client(REMOTE_ADDR=f"10.9.0.{n + 1}").post(
                "/api/flags/", json.dumps(body), content_type="application/json"
            )
        assert response.status_code == 201
    assert Notice.objects.count() == 3
    assert [name for name, _ in sent] == [NEW_NOTICES_TASK]


@pytest.mark.django_db
def test_the_task_tries_the_untried_notices_once_and_leaves_the_rest(smtp, settings):  # noqa: F811
    ModeratorFactory.create(username="mod", email="mod@example.com")
    flags = []
    for n in range(2):
        body = {"cell": CellFactory.create(product__name=f"Engine {n}").pk, "reason": "other"}
        response = Client(REMOTE_ADDR=f"10.9.1.{n + 1}").post(
            "/api/flags/",
            json.dumps({**body, "explanation": EXPLANATION, "email": REPORTER}),
            content_type="application/json",
        )
        flags.append(response.json()["id"])
    # one notice tried before (it waits for its backoff), the rest untried
    tried = Notice.objects.get(flag_id=flags[1], kind=Notice.Kind.RECEIVED)
    Notice.objects.filter(pk=tried.pk).update(attempts=1)
    Notice.objects.exclude(pk=tried.pk).update(status=Notice.State.PENDING, attempts=0)
    settings.MODERATOR_NOTICES = "digest"  # the moderators' wait for the digest
    outcomes = mailing.notices_new_send()
    received = Notice.objects.get(flag_id=flags[0], kind=Notice.Kind.RECEIVED)
    assert outcomes == {received.pk: mailing.Outcome("sent")}
    [mail] = smtp.wait_for(1)
    assert mail.subject == "Your flag on Engine 0: received"
    assert mailing.notices_new_send() == {}
