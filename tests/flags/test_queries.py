"""Flag pages, the record and the moderators' API run a constant number of queries."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from flags.forms import DecisionForm, FlagForm
from flags.models import Flag, Reason, ReviewItem, Status
from flags.services import flag_submit, review_item_uphold
from stories.models import Cell
from tests.factories import FlagFactory, ReviewItemFactory
from web.http.clients import client_hash

EXPLANATION = "A long enough explanation of what is wrong with this verdict."
URLS = [
    "/changes/",
    "/changes/feed/",
    "/api/flags/?status=pending",
    "/api/flags/",
    "/admin/flags/reviewitem/",
]


def count(client, url) -> int:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(ctx.captured_queries)


def file_flag(cell, who: str, reason=Reason.OTHER) -> Flag:
    data = FlagForm({"reason": reason, "explanation": EXPLANATION})
    return flag_submit(cell=cell, form=data, client=client_hash(who))


def flag_twice_and_uphold(cell, i, moderator) -> None:
    file_flag(cell, f"ip{i}")
    item = file_flag(cell, f"ip{i}b").item
    review_item_uphold(item=item, moderator=moderator, form=DecisionForm({"note": "ok"}))


@pytest.fixture
def cells(seeded_arena):
    return list(Cell.objects.filter(story__arena=seeded_arena).order_by("pk"))


@pytest.fixture
def moderator_client(moderator):
    client = Client()
    client.force_login(moderator)
    return client


def grow(cells, moderator) -> None:
    """Twenty more upheld items and twenty more pending ones."""
    for i, cell in enumerate(cells[2:22], start=2):
        flag_twice_and_uphold(cell, i, moderator)
        file_flag(cells[i + 40], f"q{i}", reason=Reason.WRONG_QUALITY)


@pytest.mark.django_db
def test_record_queue_and_api_queries_do_not_grow(cells, moderator, moderator_client):
    flag_twice_and_uphold(cells[0], 0, moderator)
    file_flag(cells[1], "p1")
    small = {url: count(moderator_client, url) for url in URLS}
    grow(cells, moderator)
    large = {url: count(moderator_client, url) for url in URLS}
    assert large == small, (small, large)


@pytest.mark.django_db
def test_status_page_queries_do_not_grow(cells, moderator):
    flag_twice_and_uphold(cells[0], 0, moderator)
    small = count(Client(), Flag.objects.first().get_absolute_url())
    grow(cells, moderator)
    assert count(Client(), Flag.objects.last().get_absolute_url()) == small


def pend(arena, count: int, offset: int) -> list:
    """``count`` pending items (one flag each) on cells of ``arena``, from the ``offset``-th."""
    cells = Cell.objects.filter(story__arena=arena).order_by("pk")[offset : offset + count]
    return [FlagFactory(item=ReviewItemFactory(cell=cell)).item for cell in cells]


@pytest.mark.django_db
def test_queue_and_item_page_queries_do_not_grow_with_pending_items_in_two_arenas(
    seeded_arena, big_arena, moderator_client
):
    """The impact of upholding comes from stored scores: 5 or 50 pending items over two arenas
    (one of 30 × 300), the same queries."""
    first = pend(seeded_arena, 3, 0)[0]
    pend(big_arena, 2, 0)
    queue = "/admin/flags/reviewitem/"
    item_page = f"/admin/flags/reviewitem/{first.pk}/change/"
    small = (count(moderator_client, queue), count(moderator_client, item_page))
    pend(seeded_arena, 22, 3)
    pend(big_arena, 23, 2)
    assert ReviewItem.objects.filter(status=Status.PENDING).count() == 50
    page = moderator_client.get(queue).content.decode()
    assert page.count(", rank ") == 50  # every row shows its impact
    large = (count(moderator_client, queue), count(moderator_client, item_page))
    print(f"queries: queue {large[0]}, item page {large[1]}")
    assert large == small


@pytest.mark.django_db
def test_item_page_queries_do_not_grow_with_its_flags_and_their_reporters_records(
    seeded_arena, moderator, moderator_client, django_capture_on_commit_callbacks
):
    """Each flag's reporter record comes from one query for all the flags of the item (the
    upholds' recomputation run, so the impact reads the stored scores both times)."""
    cells = list(Cell.objects.filter(story__arena=seeded_arena).order_by("pk")[:12])
    item = FlagFactory(item=ReviewItemFactory(cell=cells[0])).item
    url = f"/admin/flags/reviewitem/{item.pk}/change/"
    small = count(moderator_client, url)
    for i, cell in enumerate(cells[1:11], start=1):
        email = f"r{i}@example.com" if i % 2 else ""
        past = FlagFactory(item=ReviewItemFactory(cell=cell), email=email)
        with django_capture_on_commit_callbacks(execute=True):
            review_item_uphold(
                item=past.item, moderator=moderator, form=DecisionForm({"note": "ok"})
            )
        FlagFactory(item=item, email=email, client_hash=past.client_hash)
    page = moderator_client.get(url).content.decode()
    assert page.count("1 upheld, 0 rejected") == 10
    assert count(moderator_client, url) == small
