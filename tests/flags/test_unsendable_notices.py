"""Mail that cannot be written or sent never jams the outbox: names from the database with line
breaks, control characters, lone surrogates or huge lengths reach the mail as one-line subjects,
and a notice whose attempt breaks for any reason is counted, given up after NOTICE_MAX_ATTEMPTS
(failed, logged as an error, seen in /metrics) while the others in the same sweep are sent. Sent
through a REAL SMTP server (aiosmtpd on a free local port)."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from django.utils import timezone

from flags import mailing
from flags.inputs import FlagInput
from flags.models import Flag, Notice, Reason
from flags.services import flag_submit
from tests.factories import CellFactory, ModeratorFactory
from tests.infra.smtp import smtp_server

EXPLANATION = "The docs now describe a built-in approval step with a webhook resume."
REPORTER = "reporter@example.com"


@pytest.fixture
def smtp(settings):
    with smtp_server() as server:
        settings.MAILERS = server.mailers()
        settings.SITE_URL = "https://arena.example"
        settings.NOTICE_MAX_ATTEMPTS = 3
        yield server


def later() -> timezone.datetime:
    return timezone.now() + timedelta(days=1)


def flag_on(product: str, address: str, email: str = REPORTER) -> Flag:
    """A flag filed on a new cell of ``product`` (its notices pending: nothing runs at the commit
    in a test transaction)."""
    cell = CellFactory.create(product__name=product)
    data = FlagInput(reason=Reason.OTHER, explanation=EXPLANATION, email=email)
    return flag_submit(cell=cell, data=data, client=f"test:{address}")


@pytest.mark.django_db
def test_a_name_with_a_line_break_is_sent_on_one_line_and_jams_nothing(smtp, caplog):
    ModeratorFactory.create(username="mod", email="mod@example.com")
    broken = flag_on("Temporal\r\nBcc: victim@example.com", "10.0.0.1")
    plain = flag_on("Airflow", "10.0.0.2")
    with caplog.at_level(logging.WARNING, logger="flags"):
        counts = mailing.notices_send_due(now=later())
    assert counts == {"sent": 4}
    subjects = sorted(m.subject for m in smtp.wait_for(4))
    assert subjects == [
        "New flag on Airflow",
        "New flag on Temporal Bcc: victim@example.com",
        "Your flag on Airflow: received",
        "Your flag on Temporal Bcc: victim@example.com: received",
    ]
    # no header was smuggled in: the only recipients are the reporter and the moderator
    assert sorted(r for m in smtp.messages for r in m.recipients) == sorted(
        [REPORTER, REPORTER, "mod@example.com", "mod@example.com"]
    )
    assert all(m.message["Bcc"] is None for m in smtp.messages)
    notices = Notice.objects.filter(flag__in=[broken, plain])
    assert {(n.status, n.attempts) for n in notices} == {(Notice.State.SENT, 1)}
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
