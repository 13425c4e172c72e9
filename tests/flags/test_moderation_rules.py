"""Decisions say what they do: contradictions are reported, notes are required, a decision covers
only the flags the moderator saw, and the database holds the one-flag-per-client rule."""

import pytest
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.test import Client

from arena.clients import client_hash
from flags.models import Flag, ReviewItem
from flags.services import flag_reject, flag_submit, flag_uphold
from stories.models import Cell, CellChange
from stories.services import story_retire
from tests.forms import page_form

EXPLANATION = "The docs now describe a built-in approval step with a webhook resume."


@pytest.fixture
def moderator(django_user_model):
    user = django_user_model.objects.create_user("mod", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Moderators"))
    return user


@pytest.fixture
def cell(seeded_arena):
    return Cell.objects.get(
        story__text__startswith="A workflow pauses for human approval", product__slug="hatchet"
    )


def flag(cell, who="10.0.0.1", **kw) -> Flag:
    return flag_submit(
        cell=cell, reason="wrong_verdict", explanation=EXPLANATION, client=client_hash(who), **kw
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    "values, field",
    [
        ({"verdict": "none", "quality": 5}, "quality"),
        ({"verdict": "n/a", "proof": "probed"}, "proof"),
        ({"verdict": "full", "proof": None}, "proof"),
        ({"verdict": "partial", "quality": 11}, "quality"),
    ],
)
def test_contradictory_values_are_reported_not_rewritten(cell, moderator, values, field):
    f = flag(cell)
    with pytest.raises(ValidationError) as exc:
        flag_uphold(item=f.item, moderator=moderator, note="Checked.", **values)
    assert field in exc.value.message_dict
    f.item.refresh_from_db()
    cell.refresh_from_db()
    assert f.item.status == "pending" and cell.verdict == "none"
    assert not CellChange.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("note", ["", "   ", "\x00\x0b"])
def test_a_decision_needs_a_public_note(cell, moderator, note):
    f = flag(cell)
    for decide in (flag_uphold, flag_reject):
        with pytest.raises(ValidationError) as exc:
            decide(item=f.item, moderator=moderator, note=note)
        assert "note" in exc.value.message_dict
    f.item.refresh_from_db()
    assert f.item.status == "pending"


@pytest.mark.django_db
def test_control_characters_never_reach_the_record(cell, moderator):
    f = flag(cell)
    flag_uphold(item=f.item, moderator=moderator, note="Fixed\x00 in\x1b the docs\x7f.")
    assert CellChange.objects.get().note == "Fixed in the docs."
    assert Client().get("/changes/feed/").status_code == 200


@pytest.mark.django_db
def test_a_decision_covers_only_the_flags_the_moderator_saw(cell, moderator):
    first = flag(cell, "10.0.0.1", proposed_verdict="full", proposed_quality=8)
    mod = Client()
    mod.force_login(moderator)
    url = f"/admin/flags/reviewitem/{first.item_id}/change/"
    data = page_form(mod, url, "review-form", decision="reject", note="Not convincing.")
    late = flag(cell, "10.0.0.2")  # filed while the moderator reads the item
    response = mod.post(url, data)
    assert response.status_code == 302
    first.refresh_from_db()
    late.refresh_from_db()
    assert first.item.status == "rejected"
    assert late.item_id != first.item_id and late.item.status == "pending"
    assert ReviewItem.objects.filter(cell=cell, status="pending").count() == 1
    status = Client().get(f"/flags/status/{late.token}/").content.decode()
    assert "pending" in status


@pytest.mark.django_db
def test_the_review_page_preselects_no_decision(cell, moderator):
    f = flag(cell)
    mod = Client()
    mod.force_login(moderator)
    data = page_form(mod, f"/admin/flags/reviewitem/{f.item_id}/change/", "review-form")
    assert "decision" not in data  # resolving without reading corrects nothing
    response = mod.post(f"/admin/flags/reviewitem/{f.item_id}/change/", {**data, "note": "x"})
    assert response.status_code == 200 and "This field is required" in response.content.decode()


@pytest.mark.django_db
def test_the_database_holds_one_pending_flag_per_client_per_cell(cell):
    f = flag(cell)
    with pytest.raises(IntegrityError), transaction.atomic():
        Flag.objects.create(
            item=f.item,
            cell=cell,
            reason="other",
            explanation=EXPLANATION,
            client_hash=f.client_hash,
            created_at=f.created_at,
        )
    with pytest.raises(ValidationError, match="already flagged"):
        flag(cell)


@pytest.mark.django_db
def test_a_retired_verdict_cannot_be_flagged(cell):
    story_retire(story=cell.story)
    with pytest.raises(ValidationError, match="retired"):
        flag(Cell.objects.get(pk=cell.pk))
