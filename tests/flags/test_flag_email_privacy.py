"""A reporter's address stays private: in no public page, feed, export or API response, and erased
FLAG_EMAIL_RETENTION_DAYS after the decision (the command and the beat's task)."""

from __future__ import annotations

import io
import json
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from flags import tasks
from flags.mailing import flag_emails_erase
from flags.models import Flag, Notice, ReviewItem, Status
from stories.models import Cell
from tests.factories import FlagFactory, ReviewItemFactory

SECRET = "kept-private-reporter@example.com"
EXPLANATION = "The docs now describe a built-in approval step with a webhook resume."
ARENA = "/arenas/durable-execution-engines"


def public_urls(cell: Cell) -> list[str]:
    product, story = cell.product.slug, cell.story_id
    return [
        "/",
        f"{ARENA}/",
        f"{ARENA}.md",
        f"{ARENA}/products/{product}/",
        f"{ARENA}/stories/{story}/",
        f"{ARENA}/export.json",
        f"{ARENA}/export.csv",
        f"{ARENA}/changes/feed/",
        f"{ARENA}/products/{product}/changes/feed/",
        f"/cells/{cell.pk}/",
        f"/cells/{cell.pk}.md",
        "/changes/",
        "/changes/feed/",
        "/llms.txt",
        "/api/arenas/durable-execution-engines/",
        "/api/arenas/durable-execution-engines/matrix/",
    ]


@pytest.mark.django_db
def test_the_address_is_in_no_public_response_and_no_api_response(seeded_arena, moderator):
    cell = Cell.objects.select_related("product").get(
        story__text__startswith="A workflow pauses for human approval", product__slug="hatchet"
    )
    body = {"cell": cell.pk, "reason": "wrong_verdict", "explanation": EXPLANATION, "email": SECRET}
    filed = Client(REMOTE_ADDR="10.7.0.1").post(
        "/api/flags/", json.dumps(body), content_type="application/json"
    )
    assert filed.status_code == 201 and SECRET not in filed.content.decode()
    flag = Flag.objects.get(pk=filed.json()["id"])
    assert flag.email == SECRET  # kept, for the mail
    mod = Client()
    mod.force_login(moderator)
    upheld = mod.post(
        f"/api/flags/{flag.pk}/uphold/",
        json.dumps({"verdict": "full", "proof": "claimed", "quality": 7, "note": "Yes."}),
        content_type="application/json",
    )
    assert upheld.status_code == 200 and SECRET not in upheld.content.decode()
    responses = {url: Client().get(url) for url in public_urls(cell)}
    responses[flag.get_absolute_url()] = Client().get(flag.get_absolute_url())
    # what moderators read through the API does not name it either
    responses["/api/flags/ (moderator)"] = mod.get("/api/flags/")
    responses["/api/flags/ID/ (moderator)"] = mod.get(f"/api/flags/{flag.pk}/")
    for url, response in responses.items():
        assert response.status_code == 200, url
        content = b"".join(response) if response.streaming else response.content
        assert SECRET.encode() not in content, url
        assert b"kept-private-reporter" not in content, url
    assert EXPLANATION in responses["/api/flags/ (moderator)"].content.decode()


def decided_flag(days_ago: float, email: str = SECRET) -> Flag:
    resolved = timezone.now() - timedelta(days=days_ago)
    item = ReviewItemFactory.create(
        status=Status.REJECTED, resolved_at=resolved, created_at=resolved - timedelta(days=1)
    )
    return FlagFactory.create(item=item, cell=item.cell, email=email)


@pytest.mark.django_db
def test_addresses_are_erased_the_set_number_of_days_after_the_decision(settings):
    settings.FLAG_EMAIL_RETENTION_DAYS = 30
    old, recent = decided_flag(31), decided_flag(29)
    pending_item = ReviewItemFactory.create()
    pending = FlagFactory.create(item=pending_item, cell=pending_item.cell, email=SECRET)
    # a mail of the old flag still waiting (its server down): skipped, its error forgotten
    now = timezone.now()
    Notice.objects.create(
        kind=Notice.Kind.DECIDED,
        flag=old,
        created_at=now,
        next_attempt_at=now,
        attempts=2,
        last_error=f"SMTPRecipientsRefused: {SECRET}",
    )
    out = io.StringIO()
    call_command("erase_flag_emails", stdout=out)
    assert "1 address(es) of flags decided over 30 days ago erased" in out.getvalue()
    emails = dict(Flag.objects.values_list("pk", "email"))
    assert emails == {old.pk: "", recent.pk: SECRET, pending.pk: SECRET}
    notice = Notice.objects.get(flag=old)
    assert (notice.status, notice.last_error) == (Notice.State.SKIPPED, "")
    # two days on, the beat's task erases the next one; the pending flag keeps its address
    assert flag_emails_erase(now=timezone.now() + timedelta(days=2)) == 1
    assert tasks.flag_emails_erase() == 0
    assert set(Flag.objects.exclude(email="").values_list("pk", flat=True)) == {pending.pk}
    assert ReviewItem.objects.filter(pk=pending_item.pk, status=Status.PENDING).exists()
