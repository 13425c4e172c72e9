"""A flag's source URL accepted as new evidence when the flag is upheld (admin review page and API):
the cell's proof page shows it like any evidence, with its link, checked on the day of the decision."""

import json
from datetime import date

import pytest
from django.test import Client

from flags.models import ModeratorAction, Status
from stories import freshness
from stories.models import Cell, Evidence
from tests.factories import CellFactory, EvidenceFactory, FlagFactory, ReviewItemFactory
from tests.forms import page_form

pytestmark = pytest.mark.django_db

SOURCE = "https://example.com/changelog#2.4"
EXPLANATION = "The 2.4 changelog says approvals resume from a webhook, with a complete example."
DECISION_DAY = date(2026, 11, 30)


@pytest.fixture(autouse=True)
def decided_today(monkeypatch):
    monkeypatch.setattr(freshness, "today", lambda: DECISION_DAY)


@pytest.fixture
def mod_client(moderator):
    client = Client()
    client.force_login(moderator)
    return client


@pytest.fixture
def item():
    cell = CellFactory(detail_published=True, evidence_as_of=date(2026, 1, 10))
    EvidenceFactory(cell=cell, position=0, source="github", quote="Approvals need a poll.")
    item = ReviewItemFactory(cell=cell)
    FlagFactory(item=item, source_url=SOURCE, explanation=EXPLANATION)
    FlagFactory(item=item, source_url="")  # another reporter, no source
    return item


def review_url(item) -> str:
    return f"/admin/flags/reviewitem/{item.pk}/change/"


def test_the_review_page_accepts_the_source_as_evidence_shown_on_the_proof_page(item, mod_client):
    data = page_form(
        mod_client,
        review_url(item),
        "review-form",
        decision="uphold",
        note="The changelog confirms it.",
        accept_source="on",
    )
    response = mod_client.post(review_url(item), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    item.refresh_from_db()
    assert item.status == Status.UPHELD
    accepted = Evidence.objects.get(cell=item.cell, url=SOURCE)
    assert (accepted.source, accepted.quote, accepted.checked_on, accepted.position) == (
        "community",
        EXPLANATION,
        DECISION_DAY,
        1,  # after the cell's own quote
    )
    assert Cell.objects.get(pk=item.cell_id).evidence_as_of == DECISION_DAY
    action = ModeratorAction.objects.get(item=item)
    assert action.detail["accepted_sources"] == [SOURCE]
    page = Client().get(f"/cells/{item.cell_id}/").content.decode()
    assert f'href="{SOURCE}" rel="nofollow ugc noopener"' in page
    assert EXPLANATION in page


def test_without_accepting_no_evidence_is_added(item, mod_client):
    data = page_form(
        mod_client, review_url(item), "review-form", decision="uphold", note="Confirmed."
    )
    assert mod_client.post(review_url(item), data).status_code == 302
    assert not Evidence.objects.filter(url=SOURCE).exists()
    # the decision still checked the cell today
    assert Cell.objects.get(pk=item.cell_id).evidence_as_of == DECISION_DAY


def post_json(client, url, data):
    return client.post(url, json.dumps(data), content_type="application/json")


def test_the_api_accepts_the_source_with_the_moderators_quote(item, mod_client):
    flag = item.flags.get(source_url=SOURCE)
    body = {"note": "Confirmed.", "accept_source": True, "evidence_quote": "Resume by webhook."}
    response = post_json(mod_client, f"/api/flags/{flag.pk}/uphold/", body)
    assert response.status_code == 200, response.content
    accepted = Evidence.objects.get(cell=item.cell, url=SOURCE)
    assert accepted.quote == "Resume by webhook." and accepted.checked_on == DECISION_DAY


def test_accepting_a_source_no_flag_gives_is_a_clear_400_and_changes_nothing(mod_client):
    item = ReviewItemFactory(cell=CellFactory())
    flag = FlagFactory(item=item, source_url="")
    response = post_json(
        mod_client, f"/api/flags/{flag.pk}/uphold/", {"note": "Ok.", "accept_source": True}
    )
    assert response.status_code == 400
    assert "No flag in this decision gives a source URL" in response.json()["accept_source"][0]
    item.refresh_from_db()
    assert item.status == Status.PENDING and not Evidence.objects.filter(cell=item.cell).exists()


@pytest.mark.parametrize("url", ["ftp://example.com/x", "javascript:alert(1)", "not a url"])
def test_a_flag_source_must_be_an_http_address(seeded_arena, url):
    cell = Cell.objects.filter(story__arena=seeded_arena).first()
    body = {
        "cell": cell.pk,
        "reason": "outdated_evidence",
        "explanation": EXPLANATION,
        "source_url": url,
    }
    response = post_json(Client(), "/api/flags/", body)
    assert response.status_code == 400
    assert "source_url" in response.json()


def test_the_review_page_offers_to_accept_a_source_only_when_a_flag_gives_one(item, mod_client):
    assert "source URL as new evidence" in mod_client.get(review_url(item)).content.decode()
    plain = ReviewItemFactory(cell=CellFactory())
    FlagFactory(item=plain, source_url="")
    assert "source URL as new evidence" not in mod_client.get(review_url(plain)).content.decode()
