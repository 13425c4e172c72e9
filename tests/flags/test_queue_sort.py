"""The moderators' queue sorted by the impact of upholding, across every pending item (not only the
page's), at a constant number of queries."""

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from flags.admin import ReviewItemAdmin
from flags.models import Reason, ReviewItem, Status
from stories.models import Cell
from stories.values import Verdict
from tests.factories import (
    ArenaFactory,
    CellFactory,
    FlagFactory,
    ProductFactory,
    ReviewItemFactory,
    StoryFactory,
)

QUEUE = "/admin/flags/reviewitem/"
BY_IMPACT = QUEUE + "?sort=impact"


@pytest.fixture
def mod_client(moderator):
    client = Client()
    client.force_login(moderator)
    return client


def rows(client: Client, url: str) -> list[int]:
    """The review items' ids in the queue's order."""
    page = client.get(url)
    assert page.status_code == 200
    return [
        int(pk)
        for pk in re.findall(
            r'<a href="/admin/flags/reviewitem/(\d+)/change/">', page.content.decode()
        )
    ]


def flagged(cell, hours_ago: int, **proposal):
    when = timezone.now() - timedelta(hours=hours_ago)
    return FlagFactory(
        item=ReviewItemFactory(cell=cell, created_at=when), created_at=when, **proposal
    ).item


@pytest.fixture
def queue(db):
    """Alpha (full 8/10 twice) leads Beta (partial 5/10 twice). Four pending items, oldest first:
    one proposing nothing, one raising Beta without passing Alpha, one dropping Alpha below Beta,
    and another proposing nothing."""
    arena = ArenaFactory()
    alpha = ProductFactory(arena=arena, name="Alpha")
    beta = ProductFactory(arena=arena, name="Beta")
    first, second = StoryFactory(arena=arena), StoryFactory(arena=arena)
    a1, a2 = (CellFactory(story=s, product=alpha) for s in (first, second))
    b1, b2 = (CellFactory(story=s, product=beta, partial=True) for s in (first, second))
    nothing = {"reason": Reason.OTHER, "proposed_verdict": "", "proposed_quality": None}
    return {
        "nothing_old": flagged(a2, 40, **nothing),
        "raise_beta": flagged(b1, 30, proposed_verdict=Verdict.FULL, proposed_quality=10),
        "drop_alpha": flagged(a1, 20, proposed_verdict=Verdict.NONE, proposed_quality=0),
        "nothing_new": flagged(b2, 10, **nothing),
    }


@pytest.mark.django_db
def test_the_queue_opens_oldest_first(queue, mod_client):
    names = ["nothing_old", "raise_beta", "drop_alpha", "nothing_new"]
    assert rows(mod_client, QUEUE) == [queue[n].pk for n in names]


@pytest.mark.django_db
def test_sorted_by_impact_a_change_of_rank_comes_first_then_the_larger_score_change(
    queue, mod_client
):
    names = [
        "drop_alpha",
        "raise_beta",
        "nothing_old",
        "nothing_new",
    ]  # equal impacts: oldest first
    assert rows(mod_client, BY_IMPACT) == [queue[n].pk for n in names]
    page = mod_client.get(BY_IMPACT).content.decode()
    assert "Alpha PA 80 → 40, rank 1 → 2" in page
    chosen = (
        r'<li class="selected"><a href="\?sort=impact" aria-current="true">'
        r"Largest impact of upholding first"
    )
    assert re.search(chosen, page)


@pytest.mark.django_db
def test_sorting_by_impact_ranks_the_whole_queue_not_one_page(queue, mod_client, monkeypatch):
    monkeypatch.setattr(ReviewItemAdmin, "list_per_page", 2)
    first, second = rows(mod_client, BY_IMPACT), rows(mod_client, BY_IMPACT + "&p=2")
    assert first == [queue["drop_alpha"].pk, queue["raise_beta"].pk]
    assert second == [queue["nothing_old"].pk, queue["nothing_new"].pk]


@pytest.mark.django_db
def test_with_every_status_shown_the_resolved_items_come_after_the_ranking(queue, mod_client):
    old = queue["nothing_old"]
    ReviewItem.objects.filter(pk=old.pk).update(status=Status.REJECTED, resolved_at=timezone.now())
    order = rows(mod_client, BY_IMPACT + "&status=all")
    assert order == [queue[n].pk for n in ("drop_alpha", "raise_beta", "nothing_new")] + [old.pk]


def count(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def pend(arena, how_many: int, offset: int) -> None:
    cells = Cell.objects.filter(story__arena=arena).order_by("pk")[offset : offset + how_many]
    for i, cell in enumerate(cells):
        proposal = {"proposed_verdict": Verdict.NONE, "proposed_quality": 0} if i % 3 else {}
        FlagFactory(item=ReviewItemFactory(cell=cell), **proposal)


@pytest.mark.django_db
def test_sorting_a_few_hundred_pending_items_by_impact_runs_the_same_queries(big_arena, mod_client):
    pend(big_arena, 5, 0)
    small = count(mod_client, BY_IMPACT)
    pend(big_arena, 295, 5)
    assert ReviewItem.objects.filter(status=Status.PENDING).count() == 300
    large = count(mod_client, BY_IMPACT)
    assert large == small
    assert len(rows(mod_client, BY_IMPACT)) == 50  # one page of the ranking
