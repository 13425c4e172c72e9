"""Mail that cannot be written or sent never jams the outbox: names from the database with line
breaks, control characters, lone surrogates or huge lengths reach the mail as one-line subjects,
and a notice whose attempt breaks for any reason is counted, given up after NOTICE_MAX_ATTEMPTS
(failed, logged as an error, seen in /metrics) while the others in the same sweep are sent. Sent
through a REAL SMTP server (aiosmtpd on a free local port)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from datetime import timedelta

import pytest
from django.core.mail import EmailMessage
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flags import mailing
from flags.forms import FlagForm
from flags.models import Flag, Notice, Reason
from flags.services import flag_submit
from tests.factories import CellFactory, ModeratorFactory
from tests.infra.services import database_url
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
    """A flag filed on a new cell of ``product`` (its notices pending: without a broker nothing is
    sent at the commit)."""
    cell = CellFactory.create(product__name=product)
    data = FlagForm({"reason": Reason.OTHER, "explanation": EXPLANATION, "email": email})
    return flag_submit(cell=cell, form=data, client=f"test:{address}")


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


def unwritable(flag: Flag) -> None:
    """The flag's address as no mail can carry it (the database holds what a writer left)."""
    Flag.objects.filter(pk=flag.pk).update(email="reporter@example.com\r\nBcc: x@example.com")


def sweeps(times: int) -> list[dict[str, int]]:
    return [mailing.notices_send_due(now=later()) for _ in range(times)]


@pytest.mark.django_db
def test_a_notice_whose_mail_cannot_be_written_fails_after_its_last_attempt_alone(
    smtp, caplog, client, settings
):
    ModeratorFactory.create(username="mod", email="mod@example.com")
    broken = flag_on("Temporal", "10.0.0.1")
    unwritable(broken)
    plain = flag_on("Airflow", "10.0.0.2")
    with caplog.at_level(logging.WARNING, logger="flags"):
        counts = sweeps(5)
    # the others go at the first sweep; the broken one is tried at each and given up at the third
    assert counts[0] == {"sent": 3, "retry": 1}
    assert counts[1] == {"retry": 1} and counts[2] == {"failed": 1} and counts[3:] == [{}, {}]
    assert sorted(m.subject for m in smtp.wait_for(3)) == [
        "New flag on Airflow",
        "New flag on Temporal",
        "Your flag on Airflow: received",
    ]
    notice = Notice.objects.get(flag=broken, kind=Notice.Kind.RECEIVED)
    assert (notice.status, notice.attempts) == (Notice.State.FAILED, 3)
    assert notice.last_error.startswith("ValueError: ") and "\n" not in notice.last_error
    assert "reporter@example.com" not in notice.last_error
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert errors == [
        f"notice {notice.pk} (received) failed after 3 attempts, given up: " + notice.last_error
    ]
    assert all("\n" not in r.getMessage() for r in caplog.records)
    assert set(Notice.objects.filter(flag=plain).values_list("status", flat=True)) == {"sent"}
    # the operator sees it in /metrics
    settings.METRICS_TOKEN = "t" * 32
    scraped = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {'t' * 32}").content.decode()
    assert 'arena_notices{state="failed"} 1.0' in scraped
    assert 'arena_notices{state="sent"} 3.0' in scraped


@pytest.mark.django_db
def test_attempts_never_pass_the_limit_and_one_left_pending_past_it_is_given_up(smtp, caplog):
    ModeratorFactory.create(username="mod", email="mod@example.com")
    flag = flag_on("Temporal", "10.0.0.1")
    # what the broken sweeps left behind: pending after more attempts than allowed, not due yet
    received = Notice.objects.filter(flag=flag, kind=Notice.Kind.RECEIVED)
    received.update(attempts=7, next_attempt_at=later())
    with caplog.at_level(logging.ERROR, logger="flags"):
        # given up now; the moderators' notice, due at once without a broker, is sent
        assert mailing.notices_send_due() == {"failed": 1, "sent": 1}
    received = Notice.objects.get(flag=flag, kind=Notice.Kind.RECEIVED)
    assert (received.status, received.attempts) == (Notice.State.FAILED, 7)
    assert [r.getMessage() for r in caplog.records] == [
        f"notice {received.pk} (received) failed after 7 attempts, given up: no attempt left"
    ]
    assert [m.subject for m in smtp.wait_for(1)] == ["New flag on Temporal"]


@pytest.mark.django_db(transaction=True)
def test_send_notices_reports_what_it_sent_and_what_failed_and_exits_1_without_a_traceback(smtp):
    ModeratorFactory.create(username="mod", email="mod@example.com")
    # without a broker nothing is sent at the commits: the command sends all three notices
    broken = flag_on("Temporal", "10.0.0.1")
    unwritable(broken)
    plain = flag_on("Airflow", "10.0.0.2", email="")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url(),
        "EMAIL_HOST": smtp.host,
        "EMAIL_PORT": str(smtp.port),
        "NOTICE_MAX_ATTEMPTS": "1",
    }
    run = subprocess.run(
        [sys.executable, "manage.py", "send_notices"], env=env, capture_output=True, text=True
    )
    notice = Notice.objects.get(flag=broken, kind=Notice.Kind.RECEIVED)
    assert (run.returncode, run.stdout) == (1, "1 failed, 2 sent\n")
    assert Notice.objects.get(flag=plain).status == Notice.State.SENT
    assert run.stderr.splitlines()[-2:] == [
        f"notice {notice.pk} failed: {notice.last_error}",
        "CommandError: 1 notice(s) given up or broken off",
    ]
    assert "Traceback" not in run.stderr
    subjects = sorted(m.subject for m in smtp.wait_for(2))
    assert subjects == ["New flag on Airflow", "New flag on Temporal"]
    # nothing due: a plain run says so and exits 0
    again = subprocess.run(
        [sys.executable, "manage.py", "send_notices"], env=env, capture_output=True, text=True
    )
    assert (again.returncode, again.stdout) == (0, "nothing due\n")


# Names as a writer may have left them: any character the database holds (lone surrogates and
# NUL it refuses), line and paragraph breaks and controls above all, up to the longest allowed.
NAMES = st.text(
    st.one_of(
        st.characters(exclude_categories=["Cs"], exclude_characters="\x00"),
        st.sampled_from("\r\n\x0b\x0c\x1c\x85\u2028\u2029\t\x1b\u202e"),
    ),
    min_size=1,
    max_size=120,
)


@pytest.mark.django_db
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(name=NAMES, story=NAMES, arena=NAMES)
def test_any_name_in_the_database_never_jams_the_mail(smtp, name, story, arena):
    ModeratorFactory.create(username="mod", email="mod@example.com")
    Notice.objects.all().delete()
    smtp.messages.clear()
    unique = f"{arena} {Flag.objects.count()}"  # arena names are unique
    cell = CellFactory.create(product__name=name, story__text=story, story__arena__name=unique)
    data = FlagForm({"reason": Reason.OTHER, "explanation": EXPLANATION, "email": REPORTER})
    flag_submit(cell=cell, form=data, client=f"test:{Flag.objects.count()}")
    flag_on("Airflow", f"plain-{Flag.objects.count()}")
    for _ in range(3):  # the sweep always finishes; at the end each notice is sent or failed
        mailing.notices_send_due(now=later())
    assert set(Notice.objects.values_list("status", flat=True)) <= {"sent", "failed"}
    assert Notice.objects.filter(attempts__gt=3).count() == 0
    sent = Notice.objects.filter(status="sent").count()
    for received in smtp.wait_for(sent):
        assert "\n" not in received.subject and len(received.subject) <= 200
    assert Notice.objects.filter(flag__cell__product__name="Airflow", status="sent").count() == 2


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(st.characters() | st.sampled_from("\ud800\udfff\x00\r\n\x85\u2028"), max_size=400)
)
def test_any_text_cleaned_for_a_mail_can_be_written_in_one(text):
    """Lone surrogates and NUL too, which no database here stores but a mail must survive."""
    subject, body = mailing.one_line(text), mailing.body_text(text)
    assert len(subject.splitlines()) <= 1 and len(subject) <= mailing.HEADER_MAX
    assert subject == subject.strip() and "  " not in subject
    message = EmailMessage(subject, body, "a@example.com", ["b@example.com"]).message()
    assert message.as_bytes()
