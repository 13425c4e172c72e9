"""A declared affiliation with the product's vendor: sent through the form or the API, kept on the
flag, and labelled for the moderators in the queue and on the review page."""

import json

import pytest
from django.test import Client

from flags.models import Flag
from tests.factories import CellFactory, FlagFactory, ProductFactory, StoryFactory

EXPLANATION = "The docs now describe a built-in approval step with a webhook resume."


@pytest.fixture
def cell(db):
    story = StoryFactory()
    return CellFactory(story=story, product=ProductFactory(arena=story.arena, name="Temporal"))


def form_data(**extra) -> dict:
    return {"reason": "wrong_verdict", "explanation": EXPLANATION, **extra}


def api_post(cell, **extra):
    body = {"cell": cell.pk, "reason": "other", "explanation": EXPLANATION, **extra}
    return Client().post("/api/flags/", json.dumps(body), content_type="application/json")


@pytest.fixture
def mod_client(moderator):
    client = Client()
    client.force_login(moderator)
    return client


@pytest.mark.django_db
def test_the_form_asks_with_a_label_naming_the_product(cell):
    page = Client().get(f"/cells/{cell.pk}/flag/").content.decode()
    assert (
        '<label for="flag-page-affiliated"><input type="checkbox" name="affiliated" '
        'aria-describedby="flag-page-affiliated_helptext" id="flag-page-affiliated"> '
        "I work for or with Temporal’s vendor</label>"
    ) in page
    assert 'id="flag-page-affiliated_helptext"' in page


@pytest.mark.django_db
@pytest.mark.parametrize("sent, kept", [({"affiliated": "on"}, True), ({}, False)])
def test_the_form_keeps_the_declaration(cell, sent, kept):
    response = Client().post(f"/cells/{cell.pk}/flag/", form_data(**sent))
    assert response.status_code == 302
    assert Flag.objects.get().affiliated is kept


@pytest.mark.django_db
def test_the_status_page_repeats_the_declaration(cell):
    response = Client().post(f"/cells/{cell.pk}/flag/", form_data(affiliated="on"))
    page = Client().get(response["Location"]).content.decode()
    assert "You declared that you work for or with Temporal’s vendor." in page


@pytest.mark.django_db
@pytest.mark.parametrize("sent, kept", [({"affiliated": True}, True), ({}, False)])
def test_the_api_takes_an_optional_boolean(cell, sent, kept):
    response = api_post(cell, **sent)
    assert response.status_code == 201
    assert response.json()["affiliated"] is kept and Flag.objects.get().affiliated is kept


@pytest.mark.django_db
@pytest.mark.parametrize("wrong", ["perhaps", "true", 1, 0, None, [True]])
def test_the_api_refuses_what_is_not_a_boolean_with_a_message(cell, wrong):
    response = api_post(cell, affiliated=wrong)
    assert response.status_code == 400 and response.json()["affiliated"]
    assert not Flag.objects.exists()


@pytest.mark.django_db
def test_the_schema_states_the_optional_boolean():
    schemas = (
        Client().get("/api/schema/", HTTP_ACCEPT="application/json").json()["components"]["schemas"]
    )
    assert schemas["FlagCreate"]["properties"]["affiliated"]["type"] == "boolean"
    assert "affiliated" not in schemas["FlagCreate"].get("required", [])
    assert schemas["Flag"]["properties"]["affiliated"]["type"] == "boolean"


@pytest.mark.django_db
def test_the_queue_and_the_review_page_label_the_vendors_flags(cell, mod_client):
    declared = FlagFactory(item__cell=cell, affiliated=True)
    FlagFactory(item=declared.item)
    alone = FlagFactory(affiliated=True)
    plain = FlagFactory()
    queue = mod_client.get("/admin/flags/reviewitem/").content.decode()
    rows = {
        f.item_id: queue.split(f"/admin/flags/reviewitem/{f.item_id}/change/")[1]
        for f in (declared, alone, plain)
    }
    label = '<span class="queue-vendor">'
    assert (
        rows[declared.item_id]
        .split("</tr>")[0]
        .count(f"{label}1 of 2 flags filed by the vendor</span>")
        == 1
    )
    assert f"{label}filed by the vendor</span>" in rows[alone.item_id].split("</tr>")[0]
    assert label not in rows[plain.item_id].split("</tr>")[0]
    review = mod_client.get(f"/admin/flags/reviewitem/{declared.item_id}/change/").content.decode()
    assert review.count(f"{label}filed by the vendor</span>") == 1
