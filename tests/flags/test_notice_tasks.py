"""With a broker, each committed notice becomes a task: in a request once its answer is written
(the client does not wait for the broker), outside one (a command, a task) at the commit."""

from __future__ import annotations

import pytest
from celery import current_app
from django.core.signals import request_finished, request_started
from django.db import close_old_connections

from flags.forms import FlagForm
from flags.models import Notice
from flags.services import flag_submit
from flags.task_names import NOTICE_TASK
from tests.factories import CellFactory
from web.http.clients import client_hash

EXPLANATION = "The docs now describe a built-in approval step with a webhook resume."


@pytest.fixture
def sent(settings, monkeypatch) -> list[tuple[str, list[int]]]:
    """A broker that records the tasks sent to it."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    tasks: list[tuple[str, list[int]]] = []
    monkeypatch.setattr(
        current_app, "send_task", lambda name, args, **kw: tasks.append((name, args))
    )
    return tasks


def file(capture, email: str = "") -> None:
    form = FlagForm({"reason": "other", "explanation": EXPLANATION, "email": email})
    cell = CellFactory.create()
    with capture(execute=True):  # the commit's callbacks run
        flag_submit(form=form, cell=cell, client=client_hash("10.7.0.1"))


def notice_tasks() -> list[tuple[str, list[int]]]:
    return [
        (NOTICE_TASK, [pk]) for pk in Notice.objects.order_by("pk").values_list("pk", flat=True)
    ]


@pytest.fixture
def requests():
    """The request signals, without closing the test's database connection (as the test client)."""
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    yield
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)


@pytest.mark.django_db
@pytest.mark.usefixtures("requests")
def test_in_a_request_the_tasks_go_once_the_answer_is_out(sent, django_capture_on_commit_callbacks):
    request_started.send(sender=None)
    file(django_capture_on_commit_callbacks, email="me@example.com")
    assert sent == []  # committed, the answer not yet written
    request_finished.send(sender=None)
    assert sent == notice_tasks() and len(sent) == 2  # the reporter's and the moderators'
    request_started.send(sender=None)
    request_finished.send(sender=None)
    assert len(sent) == 2  # the next request sends nothing again


@pytest.mark.django_db
def test_outside_a_request_the_tasks_go_at_the_commit(sent, django_capture_on_commit_callbacks):
    file(django_capture_on_commit_callbacks)
    assert sent == notice_tasks() and len(sent) == 1
