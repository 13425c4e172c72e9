"""The queue's health as a moderator reads it, on the admin's index and above the queue: how many
items wait, the oldest one's age, the median decision time of the last 30 days."""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from flags.models import Status
from tests.factories import FlagFactory, ReviewItemFactory, UserFactory

INDEX, QUEUE = "/admin/", "/admin/flags/reviewitem/"


def health_line(client: Client, url: str) -> str | None:
    """The queue-health paragraph's text, blanks collapsed; None when the page has none."""
    page = client.get(url)
    assert page.status_code == 200
    found = re.search(r'<p class="queue-health"[^>]*>(.*?)</p>', page.content.decode(), re.S)
    return None if found is None else " ".join(re.sub(r"<[^>]+>", "", found[1]).split())


def pending(age: timedelta) -> None:
    FlagFactory(item__created_at=timezone.now() - age)


def decided(took: timedelta, ago: timedelta = timedelta(hours=1)) -> None:
    resolved = timezone.now() - ago
    ReviewItemFactory(status=Status.UPHELD, created_at=resolved - took, resolved_at=resolved)


@pytest.fixture
def mod_client(moderator):
    client = Client()
    client.force_login(moderator)
    return client


@pytest.fixture
def busy_queue(db):
    """Three pending items (the oldest two days old); decisions of 3, 5 and 8 hours this month,
    and a slow one of last quarter."""
    for age in (timedelta(days=2, hours=3), timedelta(hours=7), timedelta(minutes=5)):
        pending(age)
    for hours in (3, 5, 8):
        decided(timedelta(hours=hours))
    decided(timedelta(days=9), ago=timedelta(days=60))


@pytest.mark.django_db
@pytest.mark.parametrize("url", [INDEX, QUEUE])
def test_a_moderator_sees_the_queues_health(busy_queue, mod_client, url):
    assert health_line(mod_client, url) == (
        "3 pending · oldest 2 days · median decision 5 hours (over 3 decisions in the last 30 days)"
    )


@pytest.mark.django_db
def test_the_figures_link_to_the_queue(busy_queue, mod_client):
    page = mod_client.get(INDEX).content.decode()
    assert f'<strong><a href="{QUEUE}">3 pending</a></strong>' in page


@pytest.mark.django_db
def test_an_empty_queue_with_no_decisions_says_so(mod_client):
    decided(timedelta(hours=2), ago=timedelta(days=31))
    assert health_line(mod_client, INDEX) == "0 pending · no decisions in the last 30 days"


@pytest.mark.django_db
def test_one_decision_and_a_fresh_item(mod_client):
    pending(timedelta(seconds=20))
    decided(timedelta(minutes=45))
    assert health_line(mod_client, QUEUE) == (
        "1 pending · oldest under a minute · median decision 45 minutes "
        "(over 1 decision in the last 30 days)"
    )


@pytest.mark.django_db
def test_staff_who_do_not_moderate_see_no_queue_figures(busy_queue):
    client = Client()
    client.force_login(UserFactory(is_staff=True))
    assert health_line(client, INDEX) is None
