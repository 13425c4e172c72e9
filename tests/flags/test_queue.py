"""The moderators' queue as a moderator reads it: what each row says, what the review page shows
beside each flag, and filters scoped to the chosen arena."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from flags.admin import excerpt
from flags.forms import DecisionForm
from flags.models import Reason, Status
from flags.services import review_item_reject, review_item_uphold
from tests.factories import (
    CellFactory,
    EvidenceFactory,
    FlagFactory,
    ProductFactory,
    ReviewItemFactory,
    StoryFactory,
)
from tests.forms import page_form

QUEUE = "/admin/flags/reviewitem/"
LONG_STORY = (
    "A long-running workflow survives a deploy of new code mid-flight and resumes on the new "
    "version without replaying side effects twice, even when the schema of its input changed"
)
EXPLANATION = (
    "The changelog of version 2.4 says approvals can now be resumed from a webhook, and the "
    "reference documentation shows a complete example with a timeout and an escalation path."
)


@pytest.fixture
def mod_client(moderator):
    client = Client()
    client.force_login(moderator)
    return client


def review_url(item) -> str:
    return f"/admin/flags/reviewitem/{item.pk}/change/"


@pytest.fixture
def item(db):
    """A pending item three days old, two reporters, on a cell with a rationale and evidence."""
    cell = CellFactory(story=StoryFactory(text=LONG_STORY), detail_published=True)
    EvidenceFactory(cell=cell, source="github", quote="Approvals resume from a webhook call.")
    three_days = timezone.now() - timedelta(days=3, hours=2)
    item = ReviewItemFactory(cell=cell, created_at=three_days)
    FlagFactory(item=item, created_at=three_days, reason=Reason.WRONG_QUALITY)
    FlagFactory(item=item, created_at=three_days + timedelta(hours=1), explanation=EXPLANATION)
    return item


@pytest.mark.django_db
def test_a_queue_row_shows_reasons_excerpt_reporters_age_and_the_whole_story(item, mod_client):
    page = mod_client.get(QUEUE).content.decode()
    assert "Wrong quality, Wrong verdict" in page
    assert excerpt(EXPLANATION) in page and EXPLANATION not in page
    assert LONG_STORY in page  # wrapped by queue.css, never cut
    assert '<td class="field-reporter_count">2</td>' in page
    assert ">3 days</time>" in page
    assert "admin/flags/queue.css" in page


@pytest.mark.parametrize(
    "text, limit, expected",
    [
        ("short enough", 20, "short enough"),
        ("one two three four", 8, "one two…"),
        ("one two, three", 8, "one two…"),
        ("abcdefghijkl", 8, "abcdefgh…"),
        ("  spaced\n\nout   text  ", 15, "spaced out text"),
    ],
)
def test_an_excerpt_is_cut_at_a_word_boundary(text, limit, expected):
    assert excerpt(text, limit) == expected


@pytest.mark.django_db
def test_no_decision_is_preselected_and_resolving_without_one_says_so(item, mod_client):
    data = page_form(mod_client, review_url(item), "review-form")
    assert "decision" not in data
    response = mod_client.post(review_url(item), {**data, "note": "Read it."})
    assert "Choose a decision: uphold, reject or mark duplicate" in response.content.decode()
    item.refresh_from_db()
    assert item.status == Status.PENDING


@pytest.mark.django_db
def test_the_review_page_shows_the_rationale_and_evidence_beside_the_flags(item, mod_client):
    page = mod_client.get(review_url(item)).content.decode()
    cell_part, flags_part = page.split('id="review-flags-h"')
    assert item.cell.rationale in cell_part
    assert "Approvals resume from a webhook call." in cell_part and "[github]" in cell_part
    assert EXPLANATION in flags_part
    assert "Rationale (edit to rewrite it with the correction)" in page


@pytest.mark.django_db
def test_the_review_page_shows_the_correction_note_when_the_rationale_predates_one(
    item, mod_client
):
    item.cell.rationale_predates = timezone.now() - timedelta(days=1)
    item.cell.save(update_fields=["rationale_predates"])
    page = mod_client.get(review_url(item)).content.decode()
    assert "Correction note: this rationale was written before the correction of" in page


def decided(cell, moderator, status, **flag):
    """A flag of an earlier item on ``cell``, decided as ``status``."""
    f = FlagFactory(item__cell=cell, **flag)
    decision = DecisionForm({"note": "Decided."})
    if status == Status.UPHELD:
        review_item_uphold(item=f.item, moderator=moderator, form=decision)
    else:
        review_item_reject(item=f.item, moderator=moderator, form=decision)
    return f


@pytest.mark.django_db
def test_each_flag_shows_its_reporters_record_by_email_else_by_client(item, moderator, mod_client):
    by_email, by_client = item.flags.all()
    by_email.email = "Ann@example.com"
    by_email.save()
    other = CellFactory(story__arena=item.cell.story.arena)
    decided(CellFactory(), moderator, Status.UPHELD, email="ann@example.com")
    decided(other, moderator, Status.REJECTED, email="ann@example.com", client_hash="x" * 64)
    decided(CellFactory(), moderator, Status.REJECTED, client_hash=by_client.client_hash)
    decided(CellFactory(), moderator, Status.REJECTED, client_hash=by_client.client_hash)
    page = mod_client.get(review_url(item)).content.decode()
    assert "Reporter: earlier flags from this email: 1 upheld, 1 rejected" in page
    assert "Reporter: earlier flags from this client: 0 upheld, 2 rejected" in page


@pytest.mark.django_db
def test_a_first_time_reporter_is_said_to_have_no_record(item, mod_client):
    page = mod_client.get(review_url(item)).content.decode()
    assert page.count("Reporter: no earlier decided flags from this client") == 2


@pytest.fixture
def two_arenas(item):
    """The item's arena and another, each with a product of its own and a pending item."""
    story = StoryFactory()
    other = CellFactory(
        story=story, product=ProductFactory(arena=story.arena, name="Elsewhere Flow")
    )
    FlagFactory(item__cell=other)
    return item.cell.story.arena, other.story.arena


def filter_block(page: str, title: str) -> str:
    start = page.index(f"By {title}")
    return page[start : page.index("</ul>", start)]


@pytest.mark.django_db
def test_the_product_filter_lists_only_the_chosen_arenas_products(two_arenas, item, mod_client):
    mine, theirs = two_arenas
    ProductFactory(arena=mine, name="Second Flow")
    everything = filter_block(mod_client.get(QUEUE).content.decode(), "product")
    assert f"{theirs.name} · Elsewhere Flow" in everything
    assert f"{mine.name} · {item.cell.product.name}" in everything
    page = mod_client.get(f"{QUEUE}?cell__story__arena__id__exact={mine.pk}").content.decode()
    scoped = filter_block(page, "product")
    assert item.cell.product.name in scoped and "Second Flow" in scoped
    assert "Elsewhere Flow" not in scoped
    # the other arena's category is not offered (one category left: Django hides the filter)
    assert "By category" not in page
    assert f"{theirs.name} · " not in page


@pytest.mark.django_db
@pytest.mark.parametrize("arena", ["abc", "99999999999999999999", "-1"])
def test_a_strange_arena_value_does_not_break_the_queue(two_arenas, mod_client, arena):
    response = mod_client.get(f"{QUEUE}?cell__story__arena__id__exact={arena}")
    assert response.status_code in (200, 302)
