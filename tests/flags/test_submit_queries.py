"""Submitting a flag is a few statements, the same number for the 1st and the 5th flag on a cell;
the lean path still answers as before: what the caller is told, what is stored."""

import json

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from flags.forms import FlagForm
from flags.models import Flag, ReviewItem, Status
from flags.services import flag_submit
from products.models import Product
from stories.models import Cell
from web.http.clients import client_hash

EXPLANATION = "The docs now describe a built-in approval step with a webhook resume."
RETIRED = "retired from the arena and can no longer be flagged"
# a savepoint and its release (the test's transaction; BEGIN and COMMIT in production), the
# client's lock (the upsert of its row), the cell with its arena, its pending item and the client's
# rate limit (one query), the item locked (a later flag) or opened (the first), the flag's INSERT,
# the INSERT of its mail (flags.mailing: the outbox, written in the same transaction) and the UPDATE
# of the arena's content version by its key (the pending dispute is public); the same on SQLite and
# PostgreSQL
FLAG_QUERIES = 8


def post(cell_id: int, address: str, **fields) -> tuple[int, dict, list[str]]:
    """POST /api/flags/ from ``address``: (status, body, the SQL it ran)."""
    body = {"cell": cell_id, "reason": "other", "explanation": EXPLANATION, **fields}
    with CaptureQueriesContext(connection) as ctx:
        response = Client(REMOTE_ADDR=address).post(
            "/api/flags/", json.dumps(body), content_type="application/json"
        )
    return response.status_code, response.json(), [q["sql"] for q in ctx.captured_queries]


@pytest.fixture
def cells(seeded_arena) -> list[Cell]:
    return list(Cell.objects.filter(story__arena=seeded_arena).order_by("pk")[:2])


@pytest.mark.django_db
def test_a_submit_runs_the_same_few_queries_for_the_first_and_the_fifth_flag(cells):
    counts = []
    for n in range(5):
        status, body, queries = post(cells[0].pk, f"10.4.0.{n + 1}")
        assert status == 201, body
        counts.append(len(queries))
    assert counts == [FLAG_QUERIES] * 5, counts
    # the arena's version by its key, read with the cell: no subquery over stories and cells
    (bump,) = [sql for sql in queries if sql.startswith("UPDATE")]
    assert "arena_arena" in bump and "SELECT" not in bump and "stories_" not in bump, bump
    item = ReviewItem.objects.get(cell=cells[0])
    assert item.status == Status.PENDING and item.flags.count() == 5


@pytest.mark.django_db
def test_a_submit_by_a_client_with_many_flags_runs_as_many_queries(cells, settings):
    settings.FLAG_RATE = "1000/hour"
    first = post(cells[0].pk, "10.4.1.1")
    assert first[0] == 201
    status, _, queries = post(cells[1].pk, "10.4.1.1")
    assert status == 201 and len(queries) == len(first[2])


@pytest.mark.django_db
def test_the_answer_is_the_stored_flag(cells):
    status, body, _ = post(
        cells[0].pk,
        "10.4.2.1",
        proposed_verdict="partial",
        proposed_quality=4,
        source_url="https://example.com/docs",
        email="me@example.com",
    )
    assert status == 201
    stored = Flag.objects.select_related("item").get(pk=body["id"])
    expected = {
        "id": stored.pk,
        "status": "pending",
        "item": stored.item_id,
        "cell": cells[0].pk,
        "reason": "other",
        "proposed_verdict": "partial",
        "proposed_quality": 4,
        "explanation": EXPLANATION,
        "source_url": "https://example.com/docs",
        "created_at": stored.created_at.isoformat().replace("+00:00", "Z"),
        "status_url": f"http://testserver{stored.get_absolute_url()}",
        "public_note": "",
        "affiliated": False,
    }
    assert list(body.items()) == list(expected.items())  # the values, in this order
    assert stored.proposed_verdict == "partial" and stored.proposed_quality == 4
    assert stored.email == "me@example.com" and "email" not in body


@pytest.mark.django_db
def test_a_second_flag_joins_the_item_and_is_answered_with_it(cells):
    first = post(cells[0].pk, "10.4.3.1")[1]
    status, second, _ = post(cells[0].pk, "10.4.3.2")
    assert status == 201 and second["item"] == first["item"] and second["status"] == "pending"


@pytest.mark.django_db
def test_a_flag_on_a_retired_cell_is_refused_even_when_the_cell_has_a_pending_item(cells):
    assert post(cells[0].pk, "10.4.4.1")[0] == 201
    Product.objects.filter(cells=cells[0]).update(retired_at=timezone.now())
    status, body, _ = post(cells[0].pk, "10.4.4.2")
    assert status == 400 and RETIRED in body["cell"][0]
    other = Cell.objects.filter(product_id=cells[0].product_id).exclude(pk=cells[0].pk).first()
    status, body, _ = post(other.pk, "10.4.4.2")  # no pending item there
    assert status == 400 and RETIRED in body["cell"][0]
    assert Flag.objects.count() == 1 and ReviewItem.objects.count() == 1


@pytest.mark.django_db
def test_a_flag_on_no_cell_is_told_so(cells):
    status, body, _ = post(999_999, "10.4.5.1")
    assert status == 400 and body == {"cell": ["No such cell."]}
    assert not ReviewItem.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("given", ["cell", "id"])
def test_bad_fields_on_a_retired_cell_get_every_message(cells, given):
    Product.objects.filter(cells=cells[0]).update(retired_at=timezone.now())
    data = FlagForm({"reason": "other", "explanation": "short"})
    cell = cells[0] if given == "cell" else cells[0].pk
    with pytest.raises(ValidationError) as refused:
        flag_submit(cell=cell, form=data, client=client_hash("10.4.6.1"))
    assert set(refused.value.message_dict) == {"cell", "explanation"}
    assert RETIRED in refused.value.message_dict["cell"][0]
    assert not ReviewItem.objects.exists()


@pytest.mark.django_db
def test_a_throttled_client_flagging_a_cell_again_is_told_to_wait(cells, settings):
    settings.FLAG_RATE = "1/hour"
    assert post(cells[0].pk, "10.4.7.1")[0] == 201
    status, body, _ = post(cells[0].pk, "10.4.7.1")
    assert status == 429 and "available in" in body["detail"]
    status, body, _ = post(cells[0].pk, "10.4.7.2")  # another client is not throttled
    assert status == 201


@pytest.mark.django_db
def test_a_client_flagging_a_cell_again_is_told_it_is_pending(cells):
    assert post(cells[0].pk, "10.4.8.1")[0] == 201
    status, body, _ = post(cells[0].pk, "10.4.8.1")
    assert status == 400 and "already flagged" in body["cell"][0]
    assert Flag.objects.count() == 1
