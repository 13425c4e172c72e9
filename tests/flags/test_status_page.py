"""The reporter's status page: the cell as it stood when the flag was filed, the typical decision
time, the decision, and the way to the cell's public dispute history."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from flags.forms import DecisionForm
from flags.models import Status
from flags.selectors import queue_health
from flags.services import review_item_uphold
from stories.values import Verdict
from tests.factories import CellChangeFactory, CellFactory, FlagFactory, ReviewItemFactory


def status_page(flag) -> str:
    response = Client().get(flag.get_absolute_url())
    assert response.status_code == 200
    assert response["X-Robots-Tag"] == "noindex"
    assert response["Referrer-Policy"] == "no-referrer"
    assert response["Cache-Control"] == "private, no-cache"  # one reporter's: no shared cache
    return response.content.decode()


def decided(took: timedelta, *, ago: timedelta = timedelta(hours=1), status=Status.REJECTED):
    """An item decided ``ago``, ``took`` after it was filed."""
    resolved = timezone.now() - ago
    return ReviewItemFactory(status=status, created_at=resolved - took, resolved_at=resolved)


@pytest.fixture
def flag(db):
    """A flag filed an hour ago on a full probed 8/10 cell; the cell had been changed before."""
    cell = CellFactory()
    filed = timezone.now() - timedelta(hours=1)
    CellChangeFactory(cell=cell, changed_at=filed - timedelta(days=2))  # none → full probed 8/10
    return FlagFactory(item__cell=cell, item__created_at=filed, created_at=filed)


@pytest.mark.django_db
def test_the_page_shows_the_value_when_filed_and_the_value_now_after_a_correction(flag, moderator):
    correction = {"verdict": Verdict.PARTIAL, "proof": "claimed", "quality": 5}
    review_item_uphold(
        item=flag.item,
        moderator=moderator,
        form=DecisionForm({"note": "Only some workflows.", **correction}),
    )
    page = status_page(flag)
    assert (
        "Its value when you flagged it</dt>\n  <dd>full probed 8/10 (now partial claimed 5/10)"
        in (page)
    )
    assert "Your flag is upheld" in page and "Only some workflows." in page
    assert "full probed 8/10 → partial claimed 5/10" in page  # the decision, before → after


@pytest.mark.django_db
def test_an_unchanged_cell_shows_its_value_alone(flag):
    page = status_page(flag)
    assert "<dd>full probed 8/10</dd>" in page and "(now " not in page


@pytest.mark.django_db
def test_with_no_decisions_the_page_says_so(flag):
    decided(timedelta(hours=2), ago=timedelta(days=31))  # outside the window
    page = status_page(flag)
    assert "Typical decision time</dt>\n  <dd>no decisions yet</dd>" in page


@pytest.mark.django_db
def test_one_decision_is_the_typical_time(flag):
    decided(timedelta(hours=5))
    page = status_page(flag)
    assert (
        "<dd>5 hours <small>(the median time from a flag to its decision, over the 1 decision "
        in (page)
    )


@pytest.mark.django_db
def test_several_decisions_give_their_median(flag):
    for hours in (1, 9, 5):
        decided(timedelta(hours=hours))
    decided(timedelta(days=20), ago=timedelta(days=40))  # too old to count
    page = status_page(flag)
    assert (
        "<dd>5 hours <small>(the median time from a flag to its decision, over the 3 decisions"
        in (page)
    )


@pytest.mark.django_db
def test_an_even_number_of_decisions_gives_the_mean_of_the_middle_two(db):
    for took in (timedelta(hours=2), timedelta(hours=4), timedelta(hours=9), timedelta(hours=1)):
        decided(took)
    health = queue_health()
    assert health.decided == 4 and health.median_text == "3 hours"


@pytest.mark.django_db
def test_the_page_links_the_cells_public_dispute_history(flag):
    page = status_page(flag)
    assert f'<a href="/cells/{flag.cell_id}/#disputes">' in page


@pytest.mark.django_db
def test_the_page_runs_four_queries_however_many_changes_and_decisions(
    flag, django_assert_num_queries
):
    decided(timedelta(hours=1))
    with django_assert_num_queries(4):  # the flag, the cell's change, the queue's two
        status_page(flag)
    for hours in range(2, 30):
        decided(timedelta(hours=hours))
        CellChangeFactory(cell=flag.cell, changed_at=timezone.now() - timedelta(minutes=hours))
    with django_assert_num_queries(4):
        page = status_page(flag)
    assert "over the 29 decisions" in page and "15 hours" in page
