"""The links in the flags' mails name the site's configured origin (SITE_URL, else the first of
ALLOWED_HOSTS), never the Host a filing request came with: whoever files a flag cannot point the
moderators' review links, or the reporter's, at a site of their choosing. Sent through a REAL SMTP
server."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.test import Client

from flags.mailing import LOCAL_ORIGIN, mail_origin
from tests.factories import CellFactory, ModeratorFactory
from tests.infra.smtp import smtp_server

EXPLANATION = "The docs now describe a built-in approval step with a webhook resume."
FORGED = "evil.example"


@pytest.fixture
def smtp(settings):
    with smtp_server() as server:
        settings.MAILERS = server.mailers()
        settings.DEFAULT_FROM_EMAIL = "Arena <arena@example.com>"
        settings.ALLOWED_HOSTS = ["arena.example.org", FORGED]  # (a Host Django lets through)
        yield server


def file_with_host(host: str) -> None:
    ModeratorFactory.create(username="mod", email="mod@example.com")
    cell = CellFactory.create()
    body = {
        "cell": cell.pk,
        "reason": "other",
        "explanation": EXPLANATION,
        "email": "r@example.com",
    }
    response = Client(HTTP_HOST=host).post(
        "/api/flags/", json.dumps(body), content_type="application/json", HTTP_X_FORWARDED_HOST=host
    )
    assert response.status_code == 201, response.content
    call_command("send_notices", stdout=io.StringIO())  # what cron runs without a broker


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("site_url", "origin"),
    [("https://arena.example", "https://arena.example"), ("", "https://arena.example.org")],
)
def test_a_forged_host_never_reaches_a_mails_links(smtp, settings, site_url, origin):
    settings.SITE_URL = site_url
    file_with_host(FORGED)
    mails = smtp.wait_for(2)
    assert {m.recipients[0] for m in mails} == {"mod@example.com", "r@example.com"}
    for mail in mails:
        assert FORGED not in mail.body and FORGED not in str(mail.message)
        assert f"{origin}/" in mail.body


def test_the_mail_origin_without_site_url(settings):
    settings.SITE_URL = ""
    settings.DEBUG = False
    settings.ALLOWED_HOSTS = [".arena.example.org", "www.arena.example.org"]
    assert mail_origin() == "https://arena.example.org"
    settings.DEBUG = True
    settings.ALLOWED_HOSTS = ["*", "localhost"]
    assert mail_origin() == "http://localhost"
    settings.ALLOWED_HOSTS = ["*"]
    assert mail_origin() == LOCAL_ORIGIN
