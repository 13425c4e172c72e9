"""The flags' mail, sent through a REAL SMTP server (aiosmtpd on a free local port), without a
broker: never inside the request, by ``send_notices`` (what cron runs): what reporters and
moderators receive, the one-click unsubscribe, an SMTP outage (the flag filed at once, the mail
sent once the server is back), retries that all fail (kept as failed, logged as an error), and the
moderators' digest."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from flags import mailing
from flags.models import Flag, Notice, Status
from tests.factories import CellFactory, ModeratorFactory
from tests.infra.smtp import Received, smtp_server

EXPLANATION = "The docs now describe a built-in approval step with a webhook resume."
REPORTER = "reporter@example.com"
UPHOLD = {"verdict": "partial", "proof": "claimed", "quality": 6, "note": "Only with a plugin."}


@pytest.fixture
def smtp(settings):
    with smtp_server() as server:
        settings.MAILERS = server.mailers()
        settings.SITE_URL = "http://testserver"
        settings.DEFAULT_FROM_EMAIL = "Arena <arena@example.com>"
        yield server


@pytest.fixture
def moderators(db) -> list[User]:
    """A moderator and a superuser with addresses, a moderator without one."""
    return [
        ModeratorFactory.create(username="mod", email="mod@example.com"),
        User.objects.create_superuser("root", "root@example.com", "pw"),
        ModeratorFactory.create(username="quiet", email=""),
    ]


@pytest.fixture
def cell(db):
    return CellFactory.create(product__name="Temporal")


@pytest.fixture
def mod_client(moderators) -> Client:
    client = Client()
    client.force_login(moderators[0])
    return client


def send_due() -> str:
    """``manage.py send_notices``, as cron runs it without a broker: what it printed."""
    out = io.StringIO()
    call_command("send_notices", stdout=out)
    return out.getvalue()


def file_flag(cell, capture, address: str = "10.9.0.1", **fields) -> Flag:
    """POST /api/flags/, run what waits for the commit, then ``send_notices``."""
    body = {"cell": cell.pk, "reason": "wrong_verdict", "explanation": EXPLANATION, **fields}
    with capture(execute=True):
        response = Client(REMOTE_ADDR=address).post(
            "/api/flags/", json.dumps(body), content_type="application/json"
        )
    assert response.status_code == 201, response.content
    send_due()
    return Flag.objects.get(pk=response.json()["id"])


def decide(client: Client, flag: Flag, action: str, capture, **body) -> None:
    with capture(execute=True):
        response = client.post(
            f"/api/flags/{flag.pk}/{action}/", json.dumps(body), content_type="application/json"
        )
    assert response.status_code == 200, response.content
    send_due()


def to(messages: list[Received], address: str) -> list[Received]:
    return [m for m in messages if address in m.recipients]


def unsubscribe_path(received: Received) -> str:
    header = str(received.message["List-Unsubscribe"])
    assert header.startswith("<http://testserver/flags/unsubscribe/") and header.endswith("/>")
    return header[len("<http://testserver") : -1]


@pytest.mark.django_db
def test_a_flags_whole_life_by_mail(
    smtp, moderators, cell, mod_client, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    flag = file_flag(cell, capture, email=REPORTER)
    status_url = f"http://testserver/flags/status/{flag.token}/"
    filed = smtp.wait_for(3)
    (received,) = to(filed, REPORTER)
    assert received.subject == "Your flag on Temporal: received"
    assert received.recipients == [REPORTER]
    assert status_url in received.body
    assert "Wrong verdict" in received.body
    assert str(received.message["List-Unsubscribe-Post"]) == "List-Unsubscribe=One-Click"
    assert f"http://testserver{unsubscribe_path(received)}" in received.body
    # each moderator with an address gets their own mail, with the item's review page
    told = [m for m in filed if m is not received]
    assert sorted(r for m in told for r in m.recipients) == ["mod@example.com", "root@example.com"]
    review = f"http://testserver/admin/flags/reviewitem/{flag.item_id}/change/"
    assert all(m.subject == "New flag on Temporal" and review in m.body for m in told)

    decide(mod_client, flag, "uphold", capture, **UPHOLD)
    (decided,) = smtp.wait_for(4)[3:]
    assert decided.subject == "Your flag on Temporal: upheld"
    assert decided.recipients == [REPORTER]
    assert "Only with a plugin." in decided.body
    assert "full probed 8/10 → partial claimed 6/10" in decided.body
    assert status_url in decided.body and decided.message["List-Unsubscribe"]
    assert set(Notice.objects.values_list("status", flat=True)) == {Notice.State.SENT}

    print("\nThe mail of one flag's whole life (subject → recipients):")
    for m in smtp.messages:
        print(f"  {m.subject} → {', '.join(m.recipients)}")


@pytest.mark.django_db
def test_a_rejected_flag_is_told_and_a_flag_without_an_address_is_not(
    smtp, moderators, cell, mod_client, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    with_address = file_flag(cell, capture, email=REPORTER)
    without = file_flag(cell, capture, address="10.9.0.2")
    # received for one, a new flag for the two moderators twice
    assert [m.subject for m in smtp.wait_for(5)].count("New flag on Temporal") == 4
    decide(mod_client, with_address, "reject", capture, note="The docs say otherwise.")
    decided = smtp.wait_for(6)[5]
    assert decided.subject == "Your flag on Temporal: rejected"
    assert decided.recipients == [REPORTER]
    assert "The docs say otherwise." in decided.body and "→" not in decided.body
    # every notice is settled (sent, or nobody to send it to): the server holds all there will be
    assert not Notice.objects.filter(status=Notice.State.PENDING).exists()
    assert len(smtp.messages) == 6  # nothing for the flag without an address
    assert not Notice.objects.filter(flag=without, kind__in=["received", "decided"]).exists()


@pytest.mark.django_db
def test_the_one_click_unsubscribe_stops_all_further_mail(
    smtp, moderators, cell, mod_client, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    flag = file_flag(cell, capture, email=REPORTER)
    path = unsubscribe_path(to(smtp.wait_for(3), REPORTER)[0])
    # GET only asks (mail scanners follow links): a page with one button, nothing changed
    page = Client().get(path)
    assert page.status_code == 200 and b'<form method="post"' in page.content
    assert Flag.objects.get(pk=flag.pk).email == REPORTER
    # the mail client's one-click POST: no cookie, no CSRF token
    done = Client(enforce_csrf_checks=True).post(path, "List-Unsubscribe=One-Click", "text/plain")
    assert done.status_code == 200 and b"No more mail" in done.content
    assert Flag.objects.get(pk=flag.pk).email == ""
    decide(mod_client, flag, "uphold", capture, **UPHOLD)
    assert not Notice.objects.filter(status=Notice.State.PENDING).exists()
    assert len(smtp.messages) == 3 and not to(smtp.messages, REPORTER)[1:]
    # a link that is not ours is a 404 with a message, also when tampered with
    assert (
        Client().post(path.replace("/flags/unsubscribe/", "/flags/unsubscribe/9")).status_code
        == 404
    )
    forged = Client().get("/flags/unsubscribe/1:forged/")
    assert forged.status_code == 404 and b"not valid" in forged.content


@pytest.mark.django_db
def test_an_smtp_outage_delays_no_flag_and_the_mail_goes_once_the_server_is_back(
    smtp, moderators, cell, django_capture_on_commit_callbacks
):
    smtp.stop()
    flag = file_flag(cell, django_capture_on_commit_callbacks, email=REPORTER)
    assert flag.item.status == Status.PENDING
    notices = Notice.objects.filter(flag=flag).order_by("pk")
    # one attempt each, refused: pending, due again after the backoff
    tried = [(n.kind, n.status, n.attempts) for n in notices]
    assert tried == [("received", "pending", 1), ("new_flag", "pending", 1)]
    assert all("ConnectionRefused" in n.last_error for n in notices)
    # nothing is due before the backoff has passed
    assert send_due() == "nothing due\n"
    assert list(notices.values_list("attempts", flat=True)) == [1, 1]
    smtp.start()
    notices.update(next_attempt_at=timezone.now())
    assert send_due() == "2 sent\n"
    subjects = sorted(m.subject for m in smtp.wait_for(3))
    assert subjects == ["New flag on Temporal"] * 2 + ["Your flag on Temporal: received"]
    assert [(n.status, n.attempts, n.last_error) for n in notices] == [("sent", 2, "")] * 2


@pytest.mark.django_db
def test_a_notice_every_attempt_of_which_fails_ends_failed_and_logged(
    smtp, moderators, cell, settings, caplog, django_capture_on_commit_callbacks
):
    settings.NOTICE_MAX_ATTEMPTS = 3
    smtp.stop()
    flag = file_flag(cell, django_capture_on_commit_callbacks, email=REPORTER)
    later = timezone.now() + timedelta(days=1)
    with caplog.at_level(logging.WARNING, logger="flags"):
        for _ in range(5):
            mailing.notices_send_due(now=later)
    received = Notice.objects.get(flag=flag, kind=Notice.Kind.RECEIVED)
    assert (received.status, received.attempts) == (Notice.State.FAILED, 3)
    assert REPORTER not in received.last_error  # no address kept in the error
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert any(f"notice {received.pk} (received) failed after 3 attempts" in e for e in errors)
    assert len(errors) == 2  # the reporter's notice and the moderators'


@pytest.mark.django_db
def test_the_backoff_doubles(settings):
    settings.NOTICE_RETRY_BACKOFF = 30
    assert [mailing.backoff(n) for n in (1, 2, 3, 10)] == [30, 60, 120, 3600]


@pytest.mark.django_db
def test_the_digest_names_every_new_flag_in_one_mail_per_moderator(
    smtp, moderators, settings, django_capture_on_commit_callbacks
):
    settings.MODERATOR_NOTICES = "digest"
    cells = [CellFactory.create(product__name=f"Engine {n}") for n in range(3)]
    flags = [file_flag(c, django_capture_on_commit_callbacks) for c in cells[:1]]
    # nothing at once: the moderators' notice waits, untried, for the digest
    waiting = Notice.objects.get(flag=flags[0], kind=Notice.Kind.NEW_FLAG)
    assert (waiting.status, waiting.attempts) == (Notice.State.PENDING, 0)
    assert smtp.messages == []
    queries = []
    for batch in (cells[1:], []):
        with CaptureQueriesContext(connection) as ctx:
            assert mailing.moderator_digest_send().status == "sent"
        queries.append(len(ctx.captured_queries))
        flags += [file_flag(c, django_capture_on_commit_callbacks) for c in batch]
    assert queries[0] == queries[1]  # as many queries for one flag as for two
    one, *rest = smtp.wait_for(4)
    assert one.subject == "New flag on Engine 0"
    assert [m.subject for m in rest[1:]] == ["2 new flags to review"] * 2
    assert all(f"/admin/flags/reviewitem/{f.item_id}/change/" in rest[1].body for f in flags[1:])
    assert mailing.moderator_digest_send().status == "done"


def settings_of(**env: str) -> subprocess.CompletedProcess[str]:
    """The settings module loaded in a fresh interpreter with ``env``: the default mailer's
    backend and host, and the beat's entries."""
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "m = s.MAILERS['default']; print(m['BACKEND'], m.get('OPTIONS', {}).get('host'), "
        "sorted(s.CELERY_BEAT_SCHEDULE))"
    )
    environ = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "EMAIL_HOST": ""}
    return subprocess.run(
        [sys.executable, "-c", code], env={**environ, **env}, capture_output=True, text=True
    )


def test_mail_goes_to_the_console_in_development_and_over_smtp_with_email_host():
    development = settings_of()
    assert development.stdout.startswith("django.core.mail.backends.console.EmailBackend None")
    assert "moderator-digest" not in development.stdout and "send-due-notices" in development.stdout
    production = settings_of(EMAIL_HOST="mail.example", MODERATOR_NOTICES="digest")
    assert production.stdout.startswith("django.core.mail.backends.smtp.EmailBackend mail.example")
    assert "'erase-flag-emails', 'moderator-digest'" in production.stdout
    # with DEBUG off and no EMAIL_HOST: the local mail server, never the console
    unset = settings_of(DEBUG="0", SECRET_KEY="x" * 50)
    assert unset.stdout.startswith("django.core.mail.backends.smtp.EmailBackend localhost"), unset
    wrong = settings_of(MODERATOR_NOTICES="sometimes")
    assert wrong.returncode != 0 and "MODERATOR_NOTICES is immediate or digest" in wrong.stderr


@pytest.mark.django_db
def test_without_a_broker_no_mail_is_sent_in_the_request_and_send_notices_sends_it(
    smtp, moderators, cell, django_capture_on_commit_callbacks
):
    """The request only writes the outbox, due at once; the command cron runs sends it."""
    body = {"cell": cell.pk, "reason": "other", "explanation": EXPLANATION, "email": REPORTER}
    with django_capture_on_commit_callbacks(execute=True):
        response = Client(REMOTE_ADDR="10.9.9.1").post(
            "/api/flags/", json.dumps(body), content_type="application/json"
        )
    assert response.status_code == 201 and response.json()["status"] == "pending"
    notices = Notice.objects.filter(flag_id=response.json()["id"])
    assert set(notices.values_list("status", "attempts")) == {(Notice.State.PENDING, 0)}
    assert smtp.messages == []
    assert send_due() == "2 sent\n"
    assert len(smtp.wait_for(3)) == 3
    assert set(notices.values_list("status", flat=True)) == {Notice.State.SENT}


@pytest.mark.django_db
def test_without_a_moderator_with_an_address_the_notice_is_skipped(
    smtp, cell, django_capture_on_commit_callbacks
):
    ModeratorFactory.create(username="quiet", email="")
    flag = file_flag(cell, django_capture_on_commit_callbacks)
    (notice,) = Notice.objects.filter(flag=flag)
    assert (notice.kind, notice.status, notice.attempts) == ("new_flag", "skipped", 1)
    assert smtp.messages == []


@pytest.mark.django_db
def test_a_host_too_long_to_keep_files_the_flag_and_links_to_site_url(
    smtp, cell, settings, django_capture_on_commit_callbacks
):
    settings.ALLOWED_HOSTS = ["*"]
    host = "a" * 250 + ".example"
    body = {"cell": cell.pk, "reason": "other", "explanation": EXPLANATION, "email": REPORTER}
    settings.SITE_URL = ""
    with django_capture_on_commit_callbacks(execute=True):
        response = Client(HTTP_HOST=host).post(
            "/api/flags/", json.dumps(body), content_type="application/json"
        )
    assert response.status_code == 201
    settings.SITE_URL = "https://arena.example"  # when the mail is sent
    send_due()
    (received,) = smtp.wait_for(1)
    assert "https://arena.example/flags/status/" in received.body and host not in received.body
