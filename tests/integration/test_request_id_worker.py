"""The request id across processes, with a real redis-server and a real Celery worker: a flag filed
over HTTP queues its mail task with the request's id in the message headers, and the worker's JSON
log lines for that task carry the same id; a task that fails is reported to Sentry (a local
recording endpoint) with its request's id and counted on /metrics, which also shows the queue's
length while no worker consumes it.

The web side runs in this test process (CELERY_BROKER_URL pointing at the test Redis); the worker is
a separate process on the same committed test database.
"""

from __future__ import annotations

import json
import time

import pytest
from celery import current_app as celery_app
from django.test import Client

from flags.models import Notice
from flags.task_names import NEW_NOTICES_TASK, NOTICE_TASK
from tests.factories import CellFactory, ModeratorFactory
from tests.infra.sentry import exception_types, sentry_recorder
from tests.infra.services import celery_worker, database_url
from tests.integration.test_durable_recompute import broker, redis  # noqa: F401 - fixtures
from tests.web.http.test_observability import TOKEN, scrape
from web.http import requestid

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

FLAG = {"reason": "other", "explanation": "The docs describe a built-in approval step now."}


def json_lines(log: str) -> list[dict]:
    """The worker's log lines that are JSON objects (Celery's start-up banner is printed, not
    logged)."""
    return [json.loads(line) for line in log.splitlines() if line.startswith("{")]


def wait_until(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.1)


def test_the_workers_log_lines_for_a_requests_task_carry_its_request_id(broker, settings):  # noqa: F811
    settings.METRICS_TOKEN = TOKEN
    ModeratorFactory.create(username="mod", email="mod@example.com")
    cell = CellFactory.create(product__name="Temporal")
    web = Client(REMOTE_ADDR="10.9.0.7")
    response = web.post(f"/cells/{cell.pk}/flag/", FLAG, HTTP_X_REQUEST_ID="flag-req-1")
    assert response.status_code == 302 and response["X-Request-ID"] == "flag-req-1"
    # no worker yet: the moderators' mail task waits in the queue
    assert scrape(web)[("arena_celery_queue_length", (("queue", "celery"),))] >= 1
    assert scrape(web)[("arena_celery_broker_up", ())] == 1

    with sentry_recorder() as sentry:
        env = {
            "CELERY_BROKER_URL": broker.url,
            "DATABASE_URL": database_url(),
            "LOG_FORMAT": "json",
            "SENTRY_DSN": sentry.dsn,
        }
        with celery_worker(env, beat=False) as worker:
            wait_until(
                lambda: not Notice.objects.filter(status=Notice.State.PENDING).exists(),
                30,
                "the flag's mail sent by the worker",
            )
            mine = [line for line in json_lines(worker.log) if line["request_id"] == "flag-req-1"]
            assert {"timestamp", "level", "logger", "message"} <= set(mine[0])
            tasks = [line["message"] for line in mine if line["logger"] == "arena.tasks"]
            assert tasks[0] == f"task {NEW_NOTICES_TASK} started"
            assert tasks[1].startswith(f"task {NEW_NOTICES_TASK} finished: SUCCESS in ")
            # Celery's own line of the task, and what the task printed (the console's mail)
            assert any(f"{NEW_NOTICES_TASK}[" in line["message"] for line in mine)
            assert any("Subject: New flag on Temporal" in line["message"] for line in mine)
            # lines outside any task say so
            assert any(line["request_id"] == "-" for line in json_lines(worker.log))

            # a task that fails (called without its argument), queued while a request is served
            token = requestid.CURRENT.set("fail-req-2")
            try:
                celery_app.send_task(NOTICE_TASK, args=[])
            finally:
                requestid.CURRENT.reset(token)
            event = sentry.wait_for_event(
                lambda e: e.get("tags", {}).get("request_id") == "fail-req-2", timeout=30
            )
            assert "TypeError" in exception_types(event)
            failures = ("arena_celery_task_failures_total", (("task", NOTICE_TASK),))
            wait_until(lambda: scrape(web).get(failures) == 1, 10, "the failure on /metrics")
    assert scrape(web)[("arena_celery_queue_length", (("queue", "celery"),))] == 0
