"""Decisions say what they do: contradictions are reported, notes are required, a decision covers
only the flags the moderator saw, and the database holds the one-flag-per-client rule."""

import pytest
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.test import Client

from arena.clients import client_hash
from flags.models import Flag, Reason, ReviewItem
from flags.inputs import FlagInput, ModerationDecision
from flags.services import flag_submit, review_item_reject, review_item_uphold
from stories.models import Cell, CellChange
from stories.services import story_retire
from tests.forms import page_form

EXPLANATION = "The docs now describe a built-in approval step with a webhook resume."


@pytest.fixture
def cell(seeded_arena):
    return Cell.objects.get(
        story__text__startswith="A workflow pauses for human approval", product__slug="hatchet"
    )


def flag(cell, who="10.0.0.1", **proposal) -> Flag:
    data = FlagInput(reason=Reason.WRONG_VERDICT, explanation=EXPLANATION, **proposal)
    return flag_submit(cell=cell, data=data, client=client_hash(who))


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
        review_item_uphold(
            item=f.item,
            moderator=moderator,
            decision=ModerationDecision(note="Checked.", correction=values),
        )
    assert field in exc.value.message_dict
    f.item.refresh_from_db()
    cell.refresh_from_db()
    assert f.item.status == "pending" and cell.verdict == "none"
    assert not CellChange.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("note", ["", "   ", "\x00\x0b"])
def test_a_decision_needs_a_public_note(cell, moderator, note):
    f = flag(cell)
    for decide in (review_item_uphold, review_item_reject):
        with pytest.raises(ValidationError) as exc:
            decide(item=f.item, moderator=moderator, decision=ModerationDecision(note=note))
        assert "note" in exc.value.message_dict
    f.item.refresh_from_db()
    assert f.item.status == "pending"


@pytest.mark.django_db
def test_control_characters_never_reach_the_record(cell, moderator):
    f = flag(cell)
    decision = ModerationDecision(note="Fixed\x00 in\x1b the docs\x7f.")
    review_item_uphold(item=f.item, moderator=moderator, decision=decision)
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


@pytest.mark.django_db
def test_an_uphold_from_a_stale_review_page_does_not_undo_an_admin_edit(cell, moderator):
    from stories.services import cell_edit

    f = flag(cell)  # no proposal: the form offers the cell's values as read
    mod = Client()
    mod.force_login(moderator)
    url = f"/admin/flags/reviewitem/{f.item_id}/change/"
    data = page_form(mod, url, "review-form", decision="uphold", note="Checked the docs.")
    cell_edit(
        cell=cell, changes={"quality": 0, "rationale": "Re-checked."}, base_version=cell.version
    )
    cell_edit(
        cell=Cell.objects.get(pk=cell.pk),
        changes={"verdict": "partial", "proof": "claimed", "quality": 2},
        base_version=Cell.objects.get(pk=cell.pk).version,
    )
    response = mod.post(url, data, follow=True)
    assert "changed by someone else" in response.content.decode()
    cell.refresh_from_db()
    f.item.refresh_from_db()
    assert (cell.verdict, cell.quality) == ("partial", 2) and f.item.status == "pending"
    fresh = page_form(mod, url, "review-form", decision="uphold", note="Checked the docs.")
    assert mod.post(url, fresh).status_code == 302  # the page now shows the cell as it is


@pytest.mark.django_db
def test_an_api_uphold_applies_only_a_proposal_the_moderator_read(cell, moderator):
    read = flag(cell, "10.0.0.1", proposed_verdict="partial", proposed_quality=3)
    flag(cell, "10.0.0.2", proposed_verdict="full", proposed_quality=9)  # filed meanwhile
    api = Client()
    api.force_login(moderator)
    response = api.post(
        f"/api/flags/{read.pk}/uphold/",
        {"note": "Agreed: partial.", "flags": [read.pk], "cell_version": cell.version},
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    cell.refresh_from_db()
    assert (cell.verdict, cell.quality) == ("partial", 3)
    stale = flag(cell, "10.0.0.3")
    again = api.post(
        f"/api/flags/{stale.pk}/uphold/",
        {"note": "Agreed.", "cell_version": 1, "verdict": "none"},
        content_type="application/json",
    )
    assert again.status_code == 409 and "changed by someone else" in again.json()["detail"]


@pytest.mark.django_db
@pytest.mark.parametrize("seen", ["99999999999999999999999", "1,x", "-4", "{pk},{pk},,"])
def test_a_damaged_flag_list_is_a_form_error(cell, moderator, seen):
    f = flag(cell)
    seen = seen.format(pk=f.pk)
    mod = Client()
    mod.force_login(moderator)
    url = f"/admin/flags/reviewitem/{f.item_id}/change/"
    data = page_form(mod, url, "review-form", decision="reject", note="No.", seen_flags=seen)
    response = mod.post(url, data)
    if seen == f"{f.pk},{f.pk},,":  # a list with stray commas is still a list
        assert response.status_code == 302
        return
    assert response.status_code == 200 and "damaged" in response.content.decode()
    bulk = mod.post(
        "/admin/flags/reviewitem/",
        {
            "action": "bulk_reject",
            "_selected_action": [f.item_id],
            "apply": "1",
            "note": "No.",
            f"seen-{f.item_id}": seen,
        },
    )
    assert bulk.status_code == 302


@pytest.mark.django_db
def test_who_changed_the_record_cannot_be_deleted(cell, moderator, django_user_model):
    f = flag(cell)
    review_item_uphold(
        item=f.item, moderator=moderator, decision=ModerationDecision(note="Confirmed.")
    )
    root = Client()
    root.force_login(django_user_model.objects.create_superuser("root", "r@example.com", "pw"))
    page = root.post(f"/admin/auth/user/{moderator.pk}/delete/", {"post": "yes"})
    assert page.status_code == 200 and "Cannot delete user" in page.content.decode()
    assert CellChange.objects.get().changed_by == moderator


def _decide_while_flags_arrive(target: Cell, n: int, moderator) -> Flag:
    """One round: a pending flag, then at once a decision covering it and three new flags."""
    import threading

    from django.db import connection

    first = flag(target, f"10.20.{n}.1")
    barrier = threading.Barrier(4)
    errors: list[Exception] = []

    def run(work):
        try:
            barrier.wait()
            work()
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)
        finally:
            connection.close()  # each thread has its own connection

    def decide():  # upholding locks the cell too: both orders of locking are tried
        item = ReviewItem.objects.get(pk=first.item_id)
        decide = review_item_uphold if n % 2 else review_item_reject
        decision = ModerationDecision(note="Decided.", seen_flags=frozenset({first.pk}))
        decide(item=item, moderator=moderator, decision=decision)

    works = [decide] + [lambda k=k: flag(target, f"10.20.{n}.{k + 2}") for k in range(3)]
    threads = [threading.Thread(target=run, args=(w,)) for w in works]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    return first


@pytest.mark.django_db(transaction=True)
def test_flags_filed_while_a_moderator_decides_are_never_decided_unseen(
    seeded_arena, django_user_model
):
    """Simultaneous flags and a decision (threads with their own connections; on PostgreSQL the
    row lock on the pending item orders them): every flag on a resolved item is one the decision
    covered, and the others stay pending."""
    user = django_user_model.objects.create_user("mod2", password="pw")
    user.groups.add(Group.objects.get_or_create(name="Moderators")[0])
    for n, target in enumerate(Cell.objects.filter(story__arena=seeded_arena).order_by("pk")[:12]):
        first = _decide_while_flags_arrive(target, n, user)
        resolved = ReviewItem.objects.get(pk=first.item_id)
        assert resolved.status == ("upheld" if n % 2 else "rejected")
        assert list(resolved.flags.values_list("pk", flat=True)) == [first.pk]
        assert Flag.objects.filter(cell=target).count() == 4
        assert Flag.objects.filter(cell=target, item__status="pending").count() == 3


@pytest.mark.django_db
def test_a_decision_must_name_flags_of_its_own_item(seeded_arena, moderator):
    mine = flag(Cell.objects.filter(story__arena=seeded_arena).first(), "10.0.0.1")
    other = flag(Cell.objects.filter(story__arena=seeded_arena).last(), "10.0.0.2")
    for decide in (review_item_uphold, review_item_reject):
        for seen in ({other.pk}, set(), {mine.pk, other.pk}):
            decision = ModerationDecision(note="Decided.", seen_flags=frozenset(seen))
            with pytest.raises(ValidationError) as exc:
                decide(item=mine.item, moderator=moderator, decision=decision)
            assert "flags" in exc.value.message_dict
    mine.item.refresh_from_db()
    assert mine.item.status == "pending" and not CellChange.objects.exists()
