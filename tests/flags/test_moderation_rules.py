"""Decisions say what they do: contradictions are reported, notes are required, a decision covers
only the flags the moderator saw, and the database holds the one-flag-per-client rule."""

import threading

import pytest
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.test import Client

from core.conflicts import retire_set
from flags.forms import DecisionForm, FlagForm
from flags.models import Flag, Reason, ReviewItem, Status
from flags.services import flag_submit, review_item_reject, review_item_uphold
from stories.models import Cell, CellChange
from stories.services import cell_edit
from stories.values import Proof, Verdict
from tests.forms import page_form
from web.http.clients import client_hash

EXPLANATION = "The docs now describe a built-in approval step with a webhook resume."


@pytest.fixture
def cell(seeded_arena):
    return Cell.objects.get(
        story__text__startswith="A workflow pauses for human approval", product__slug="hatchet"
    )


def flag(cell, who="10.0.0.1", **proposal) -> Flag:
    data = FlagForm({"reason": Reason.WRONG_VERDICT, "explanation": EXPLANATION, **proposal})
    return flag_submit(cell=cell, form=data, client=client_hash(who))


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
            item=f.item, moderator=moderator, form=DecisionForm({"note": "Checked.", **values})
        )
    assert field in exc.value.message_dict
    f.item.refresh_from_db()
    cell.refresh_from_db()
    assert f.item.status == "pending" and cell.verdict == "none"
    assert not CellChange.objects.exists()


DECIDE = [review_item_uphold, review_item_reject]


@pytest.mark.django_db
@pytest.mark.parametrize("decide", DECIDE)
@pytest.mark.parametrize("note", ["", "   ", "\x00\x0b"])
def test_a_decision_needs_a_public_note(cell, moderator, decide, note):
    f = flag(cell)
    with pytest.raises(ValidationError) as exc:
        decide(item=f.item, moderator=moderator, form=DecisionForm({"note": note}))
    assert "note" in exc.value.message_dict
    f.item.refresh_from_db()
    assert f.item.status == Status.PENDING


@pytest.fixture
def upheld_with_control_characters(cell, moderator):
    decision = DecisionForm({"note": "Fixed\x0b in\x1b the docs\x7f."})
    review_item_uphold(item=flag(cell).item, moderator=moderator, form=decision)


@pytest.mark.django_db
def test_control_characters_never_reach_the_record(upheld_with_control_characters):
    assert CellChange.objects.get().note == "Fixed in the docs."


@pytest.mark.django_db
def test_the_feed_survives_a_note_sent_with_control_characters(upheld_with_control_characters):
    assert Client().get("/changes/feed/").status_code == 200


@pytest.fixture
def mod(moderator):
    client = Client()
    client.force_login(moderator)
    return client


def review_url(item_id: int) -> str:
    return f"/admin/flags/reviewitem/{item_id}/change/"


@pytest.fixture
def decided_while_a_flag_came(cell, mod):
    """A rejection sent from a review page read before a second flag came: (first, late)."""
    first = flag(cell, "10.0.0.1", proposed_verdict="full", proposed_quality=8)
    url = review_url(first.item_id)
    data = page_form(mod, url, "review-form", decision="reject", note="Not convincing.")
    late = flag(cell, "10.0.0.2")  # filed while the moderator reads the item
    assert mod.post(url, data).status_code == 302
    first.refresh_from_db()
    late.refresh_from_db()
    return first, late


@pytest.mark.django_db
def test_a_decision_resolves_the_flags_the_moderator_saw(decided_while_a_flag_came):
    first, _ = decided_while_a_flag_came
    assert first.item.status == Status.REJECTED


@pytest.mark.django_db
def test_a_flag_the_moderator_did_not_see_stays_pending_on_its_own(decided_while_a_flag_came, cell):
    first, late = decided_while_a_flag_came
    assert late.item_id != first.item_id and late.item.status == Status.PENDING
    assert ReviewItem.objects.filter(cell=cell, status=Status.PENDING).count() == 1


@pytest.mark.django_db
def test_its_reporter_still_sees_it_pending(decided_while_a_flag_came):
    _, late = decided_while_a_flag_came
    assert "pending" in Client().get(f"/flags/status/{late.token}/").content.decode()


@pytest.mark.django_db
def test_the_review_page_preselects_no_decision(cell, mod):
    f = flag(cell)
    assert "decision" not in page_form(mod, review_url(f.item_id), "review-form")


@pytest.mark.django_db
def test_resolving_without_choosing_a_decision_is_refused(cell, mod):
    f = flag(cell)
    data = page_form(mod, review_url(f.item_id), "review-form")
    response = mod.post(review_url(f.item_id), {**data, "note": "x"})
    assert response.status_code == 200
    assert "Choose a decision: uphold, reject or mark duplicate" in response.content.decode()
    f.item.refresh_from_db()
    assert f.item.status == Status.PENDING


@pytest.mark.django_db
def test_the_database_holds_one_pending_flag_per_client_per_cell(cell):
    f = flag(cell)
    with pytest.raises(IntegrityError), transaction.atomic():
        Flag.objects.create(
            item=f.item,
            cell=cell,
            reason=Reason.OTHER,
            explanation=EXPLANATION,
            client_hash=f.client_hash,
            created_at=f.created_at,
        )


@pytest.mark.django_db
def test_a_second_pending_flag_of_a_client_is_told_it_is_already_flagged(cell):
    flag(cell)
    with pytest.raises(ValidationError, match="already flagged"):
        flag(cell)


@pytest.mark.django_db
def test_a_retired_verdict_cannot_be_flagged(cell):
    retire_set(cell.story, retired=True)
    with pytest.raises(ValidationError, match="retired"):
        flag(Cell.objects.get(pk=cell.pk))


def edit_meanwhile(cell) -> None:
    """Two edits of the cell in the admin while a moderator reads the review page."""
    cell_edit(
        cell=cell, changes={"quality": 0, "rationale": "Re-checked."}, base_version=cell.version
    )
    edited = Cell.objects.get(pk=cell.pk)
    cell_edit(
        cell=edited,
        changes={"verdict": Verdict.PARTIAL, "proof": Proof.CLAIMED, "quality": 2},
        base_version=edited.version,
    )


@pytest.mark.django_db
def test_an_uphold_from_a_stale_review_page_does_not_undo_an_admin_edit(cell, mod):
    f = flag(cell)  # no proposal: the form offers the cell's values as read
    url = review_url(f.item_id)
    data = page_form(mod, url, "review-form", decision="uphold", note="Checked the docs.")
    edit_meanwhile(cell)
    response = mod.post(url, data, follow=True)
    assert "changed by someone else" in response.content.decode()
    cell.refresh_from_db()
    f.item.refresh_from_db()
    assert (cell.verdict, cell.quality) == (Verdict.PARTIAL, 2)
    assert f.item.status == Status.PENDING


@pytest.mark.django_db
def test_an_uphold_from_a_reloaded_review_page_goes_through(cell, mod):
    f = flag(cell)
    url = review_url(f.item_id)
    edit_meanwhile(cell)
    fresh = page_form(mod, url, "review-form", decision="uphold", note="Checked the docs.")
    assert mod.post(url, fresh).status_code == 302


@pytest.fixture
def api(moderator):
    client = Client()
    client.force_login(moderator)
    return client


@pytest.mark.django_db
def test_an_api_uphold_applies_only_a_proposal_the_moderator_read(cell, api):
    read = flag(cell, "10.0.0.1", proposed_verdict="partial", proposed_quality=3)
    flag(cell, "10.0.0.2", proposed_verdict="full", proposed_quality=9)  # filed meanwhile
    response = api.post(
        f"/api/flags/{read.pk}/uphold/",
        {"note": "Agreed: partial.", "flags": [read.pk], "cell_version": cell.version},
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    cell.refresh_from_db()
    assert (cell.verdict, cell.quality) == (Verdict.PARTIAL, 3)


@pytest.mark.django_db
def test_an_api_uphold_of_a_cell_changed_since_it_was_read_is_409(cell, api):
    stale = flag(cell)
    edit_meanwhile(cell)
    again = api.post(
        f"/api/flags/{stale.pk}/uphold/",
        {"note": "Agreed.", "cell_version": cell.version, "verdict": "none"},
        content_type="application/json",
    )
    assert again.status_code == 409 and "changed by someone else" in again.json()["detail"]
    cell.refresh_from_db()
    assert cell.verdict == Verdict.PARTIAL


DAMAGED = ["99999999999999999999999", "1,x", "-4"]


@pytest.mark.django_db
@pytest.mark.parametrize("seen", DAMAGED)
def test_a_damaged_flag_list_is_a_form_error(cell, mod, seen):
    f = flag(cell)
    url = review_url(f.item_id)
    data = page_form(mod, url, "review-form", decision="reject", note="No.", flags=seen)
    response = mod.post(url, data)
    assert response.status_code == 200 and "damaged" in response.content.decode()
    f.item.refresh_from_db()
    assert f.item.status == Status.PENDING


@pytest.mark.django_db
def test_a_flag_list_with_stray_commas_is_still_a_list(cell, mod):
    f = flag(cell)
    url = review_url(f.item_id)
    seen = f"{f.pk},{f.pk},,"
    data = page_form(mod, url, "review-form", decision="reject", note="No.", flags=seen)
    assert mod.post(url, data).status_code == 302


@pytest.mark.django_db
@pytest.mark.parametrize("seen", DAMAGED)
def test_bulk_reject_skips_an_item_with_a_damaged_flag_list(cell, mod, seen):
    f = flag(cell)
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
    f.item.refresh_from_db()
    assert f.item.status == Status.PENDING


@pytest.mark.django_db
def test_who_changed_the_record_cannot_be_deleted(cell, moderator, django_user_model):
    f = flag(cell)
    review_item_uphold(item=f.item, moderator=moderator, form=DecisionForm({"note": "Confirmed."}))
    root = Client()
    root.force_login(django_user_model.objects.create_superuser("root", "r@example.com", "pw"))
    page = root.post(f"/admin/auth/user/{moderator.pk}/delete/", {"post": "yes"})
    assert page.status_code == 200 and "Cannot delete user" in page.content.decode()
    assert CellChange.objects.get().changed_by == moderator


def _decide_while_flags_arrive(target: Cell, n: int, moderator) -> Flag:
    """One round: a pending flag, then at once a decision covering it and three new flags."""
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
        decision = DecisionForm({"note": "Decided.", "flags": list({first.pk})})
        decide(item=item, moderator=moderator, form=decision)

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
@pytest.mark.parametrize("decide", DECIDE)
@pytest.mark.parametrize("seen", ["other", "none", "mine and other"])
def test_a_decision_must_name_flags_of_its_own_item(seeded_arena, moderator, decide, seen):
    mine = flag(Cell.objects.filter(story__arena=seeded_arena).first(), "10.0.0.1")
    other = flag(Cell.objects.filter(story__arena=seeded_arena).last(), "10.0.0.2")
    flags = {"other": {other.pk}, "none": set(), "mine and other": {mine.pk, other.pk}}[seen]
    decision = DecisionForm({"note": "Decided.", "flags": list(flags)})
    with pytest.raises(ValidationError) as exc:
        decide(item=mine.item, moderator=moderator, form=decision)
    assert "flags" in exc.value.message_dict
    mine.item.refresh_from_db()
    assert mine.item.status == Status.PENDING and not CellChange.objects.exists()
