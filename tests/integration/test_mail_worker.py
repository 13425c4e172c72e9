"""The flags' mail through a real redis-server and a real Celery worker, to a real SMTP server: the
task sent at the commit fails while the mail server is down, the notice's own task retries it
with its backoff and sends it once the server is back; a decision's mail goes through the broker too.

The web side runs in this test process with CELERY_BROKER_URL pointing at the test Redis; the
worker is a separate process on the same (committed) test database; the SMTP server is a thread of
this process that both reach over TCP.
"""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from flags import mailing
from flags.forms import DecisionForm, FlagForm
from flags.models import Notice, Reason
from flags.services import flag_submit, review_item_reject
from flags.task_names import NOTICE_TASK
from tests.factories import CellFactory, ModeratorFactory
from tests.infra.listener import CountingListener
from tests.infra.services import celery_worker, database_url
from tests.infra.smtp import smtp_server
from tests.integration.test_durable_recompute import broker, redis  # noqa: F401 - fixtures
from web.http.clients import client_hash

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

REPORTER = "reporter@example.com"
EXPLANATION = "The docs now describe a built-in approval step with a webhook resume."


def wait_until(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.1)


def test_a_notice_fails_while_smtp_is_down_and_the_worker_sends_it_once_it_is_back(broker):  # noqa: F811
    moderator = ModeratorFactory.create(username="mod", email="mod@example.com")
    cell = CellFactory.create(product__name="Temporal")
    with smtp_server() as smtp:
        env = {
            "CELERY_BROKER_URL": broker.url,
            "DATABASE_URL": database_url(),
            "EMAIL_HOST": smtp.host,
            "EMAIL_PORT": str(smtp.port),
            "EMAIL_TIMEOUT": "2",
            "NOTICE_RETRY_BACKOFF": "0.5",
            "SITE_URL": "https://arena.example",
        }
        smtp.stop()
        with celery_worker(env) as worker:
            flag = flag_submit(
                cell=cell,
                form=FlagForm(
                    {"reason": Reason.OTHER, "explanation": EXPLANATION, "email": REPORTER}
                ),
                client=client_hash("10.8.0.1"),
            )
            received = Notice.objects.get(flag=flag, kind=Notice.Kind.RECEIVED)
            # the first attempt by the new notices' task, the next by the notice's own task,
            # which retries itself after its backoff
            wait_until(
                lambda: Notice.objects.get(pk=received.pk).attempts >= 3,
                30,
                "three failed attempts of the worker",
            )
            failed = Notice.objects.get(pk=received.pk)
            assert failed.status == Notice.State.PENDING and "Connection" in failed.last_error
            assert f"{NOTICE_TASK}[" in worker.log and "Retry in" in worker.log
            smtp.start()
            messages = smtp.wait_for(2, timeout=30)
            assert sorted(m.subject for m in messages) == [
                "New flag on Temporal",
                "Your flag on Temporal: received",
            ]
            mine = next(m for m in messages if m.recipients == [REPORTER])
            assert f"https://arena.example/flags/status/{flag.token}/" in mine.body
            wait_until(
                lambda: Notice.objects.get(pk=received.pk).status == Notice.State.SENT,
                10,
                "the notice marked sent",
            )
            review_item_reject(
                item=flag.item,
                moderator=moderator,
                form=DecisionForm({"note": "The docs say otherwise."}),
            )
            decided = smtp.wait_for(3, timeout=30)[2]
            assert decided.subject == "Your flag on Temporal: rejected"
            assert decided.recipients == [REPORTER]
            assert str(decided.message["List-Unsubscribe"]).startswith(
                "<https://arena.example/flags/unsubscribe/"
            )
    print("\nThe mail of one flag's life through the worker (subject → recipients):")
    for m in smtp.messages:
        print(f"  {m.subject} → {', '.join(m.recipients)}")


def test_a_broker_that_is_down_delays_no_flag_and_the_sweep_sends_its_mail(
    broker,  # noqa: F811
    caplog,
    settings,
):
    ModeratorFactory.create(username="mod", email="mod@example.com")
    cell = CellFactory.create(product__name="Temporal")
    broker.stop()
    with CountingListener(port=broker.port) as gone:  # where the broker was: drops connections
        flag = flag_submit(
            cell=cell,
            form=FlagForm({"reason": Reason.OTHER, "explanation": EXPLANATION, "email": REPORTER}),
            client=client_hash("10.8.0.2"),
        )
        tried = gone.settled_count()
    assert tried == 1  # one refused publish for the commit, not one per notice, none retried
    notices = Notice.objects.filter(flag=flag)
    assert {(n.status, n.attempts) for n in notices} == {(Notice.State.PENDING, 0)}
    refused = [r for r in caplog.records if "not queued; the sweep will send" in r.getMessage()]
    assert len(refused) == 1
    # the beat's sweep (here in this process) sends them once they are due
    with smtp_server() as smtp:
        settings.MAILERS = smtp.mailers()
        later = timezone.now() + timedelta(minutes=2)
        assert mailing.notices_send_due(now=later) == {"sent": 2}
        assert sorted(m.subject for m in smtp.wait_for(2)) == [
            "New flag on Temporal",
            "Your flag on Temporal: received",
        ]
