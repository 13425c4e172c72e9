"""Corrections read true: an upheld correction either rewrites the cell's rationale or marks the old
one as written before it, and the public cell page says which."""

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.test import Client
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.models import Arena
from flags.forms import DecisionForm
from flags.services import review_item_reject, review_item_uphold
from stories.models import Cell
from stories.services import cell_edit
from stories.values import Proof, Verdict
from tests.factories import CellFactory, FlagFactory
from tests.forms import page_form

OLD = "The docs describe it and a probe confirmed it."
NEW = "Only some workflows can pause; the docs say the others cannot."


def content_version(cell) -> int:
    return Arena.objects.get(pk=cell.story.arena_id).content_version


def uphold(item, moderator, rationale=None, **correction):
    return review_item_uphold(
        item=item,
        moderator=moderator,
        form=DecisionForm({"note": "Checked the docs.", "rationale": rationale, **correction}),
    )


@pytest.fixture
def flagged(db):
    """A full 8/10 cell with a flag proposing partial 5/10."""
    return FlagFactory(item__cell=CellFactory(detail_published=True))


@pytest.mark.django_db
def test_an_uphold_with_a_new_rationale_replaces_it_and_marks_it_rewritten(flagged, moderator):
    item = uphold(flagged.item, moderator, rationale=NEW)
    cell = Cell.objects.get(pk=flagged.cell_id)
    assert cell.rationale == NEW and cell.verdict == Verdict.PARTIAL
    assert cell.rationale_rewritten_at == item.change.changed_at
    assert cell.rationale_predates is None


@pytest.mark.django_db
def test_the_audit_log_keeps_the_rationale_a_correction_replaced(flagged, moderator):
    item = uphold(flagged.item, moderator, rationale=NEW)
    action = item.actions.get()
    assert action.detail["rationale"] == {"old": OLD, "new": NEW}


@pytest.mark.django_db
def test_an_uphold_without_a_rationale_keeps_it_and_marks_it_older(flagged, moderator):
    item = uphold(flagged.item, moderator, rationale="   ")
    cell = Cell.objects.get(pk=flagged.cell_id)
    assert cell.rationale == OLD
    assert cell.rationale_predates == item.change.changed_at
    assert cell.rationale_rewritten_at is None


@pytest.mark.django_db
def test_the_mark_keeps_the_first_correction_the_text_predates(flagged, moderator):
    first = uphold(flagged.item, moderator)
    later = FlagFactory(cell=flagged.cell, item__cell=flagged.cell, proposed_verdict=Verdict.NONE)
    later.proposed_quality = 0
    later.save()
    uphold(later.item, moderator, verdict=Verdict.NONE, proof=None, quality=0)
    cell = Cell.objects.get(pk=flagged.cell_id)
    assert cell.verdict == Verdict.NONE
    assert cell.rationale_predates == first.change.changed_at


@pytest.mark.django_db
def test_an_uphold_that_keeps_the_judgement_does_not_mark_the_rationale(moderator):
    flag = FlagFactory(
        item__cell=CellFactory(), proposed_verdict="", proposed_quality=None, reason="other"
    )
    uphold(flag.item, moderator)
    assert Cell.objects.get(pk=flag.cell_id).rationale_predates is None


@pytest.mark.django_db
def test_a_rejected_flag_marks_nothing(flagged, moderator):
    review_item_reject(
        item=flagged.item, moderator=moderator, form=DecisionForm({"note": "Docs agree."})
    )
    cell = Cell.objects.get(pk=flagged.cell_id)
    assert (cell.rationale, cell.rationale_predates, cell.rationale_rewritten_at) == (
        OLD,
        None,
        None,
    )


@pytest.mark.django_db
@pytest.mark.parametrize("rationale", [None, NEW])
def test_an_uphold_moves_the_content_version(flagged, moderator, rationale):
    before = content_version(flagged.cell)
    uphold(flagged.item, moderator, rationale=rationale)
    assert content_version(flagged.cell) > before


@pytest.mark.django_db
def test_marking_alone_moves_the_content_version(flagged, moderator):
    """A second uphold on an already marked cell still moves it (its record is new)."""
    uphold(flagged.item, moderator)
    before = content_version(flagged.cell)
    again = FlagFactory(cell=flagged.cell, item__cell=flagged.cell)
    uphold(again.item, moderator, verdict=Verdict.NONE, proof=None, quality=0)
    assert content_version(flagged.cell) > before


@pytest.mark.django_db
def test_a_too_long_rationale_is_refused_and_nothing_changes(flagged, moderator):
    with pytest.raises(ValidationError) as exc:
        uphold(flagged.item, moderator, rationale="x" * 5001)
    assert "rationale" in exc.value.message_dict
    cell = Cell.objects.get(pk=flagged.cell_id)
    assert (cell.verdict, cell.rationale) == (Verdict.FULL, OLD)


@pytest.mark.django_db
def test_an_admin_rationale_edit_clears_the_mark(flagged, moderator):
    uphold(flagged.item, moderator)
    cell = Cell.objects.get(pk=flagged.cell_id)
    cell_edit(cell=cell, changes={"rationale": NEW}, base_version=cell.version)
    cell.refresh_from_db()
    assert cell.rationale == NEW and cell.rationale_predates is None


@pytest.mark.django_db
def test_a_rationale_rewritten_later_can_predate_a_later_correction(flagged, moderator):
    uphold(flagged.item, moderator, rationale=NEW)
    later = FlagFactory(cell=flagged.cell, item__cell=flagged.cell)
    item = uphold(later.item, moderator, verdict=Verdict.NONE, proof=None, quality=0)
    cell = Cell.objects.get(pk=flagged.cell_id)
    assert cell.rationale_predates == item.change.changed_at > cell.rationale_rewritten_at


@pytest.mark.django_db
def test_the_database_refuses_a_mark_older_than_the_rewrite(flagged):
    now = timezone.now()
    with pytest.raises(IntegrityError), transaction.atomic():
        Cell.objects.filter(pk=flagged.cell_id).update(
            rationale_rewritten_at=now, rationale_predates=now - timezone.timedelta(days=1)
        )


@pytest.mark.django_db
def test_an_unchanged_rationale_write_keeps_the_mark(flagged, moderator):
    uphold(flagged.item, moderator)
    cell = Cell.objects.get(pk=flagged.cell_id)
    assert not cell_edit(cell=cell, changes={"rationale": OLD}, base_version=cell.version)
    assert Cell.objects.get(pk=cell.pk).rationale_predates is not None


# ---------------------------------------------------------------- what readers and moderators see


def cell_page(cell) -> str:
    return Client().get(f"/cells/{cell.pk}/").content.decode()


@pytest.mark.django_db
def test_the_cell_page_says_the_rationale_predates_the_correction(flagged, moderator):
    item = uphold(flagged.item, moderator)
    page = cell_page(flagged.cell)
    day = timezone.localtime(item.change.changed_at).strftime("%Y-%m-%d")
    assert (
        "Written before the correction of <time datetime=" in page
        and f">{day}</time>: it argues for the earlier verdict (full → partial)." in page
    )
    assert OLD in page and "upheld flag" in page  # the history still lists the change


@pytest.mark.django_db
def test_the_cell_page_says_the_rationale_was_rewritten(flagged, moderator):
    item = uphold(flagged.item, moderator, rationale=NEW)
    page = cell_page(flagged.cell)
    day = timezone.localtime(item.change.changed_at).strftime("%Y-%m-%d")
    assert f">{day}</time>." in page and "Rewritten with the correction of" in page
    assert NEW in page and OLD not in page and "Written before" not in page


@pytest.mark.django_db
def test_a_moderator_rewrites_the_rationale_from_the_review_page(flagged, moderator):
    client = Client()
    client.force_login(moderator)
    url = f"/admin/flags/reviewitem/{flagged.item_id}/change/"
    data = page_form(client, url, "review-form", decision="uphold", note="Docs.", rationale=NEW)
    assert client.post(url, data).status_code == 302
    cell = Cell.objects.get(pk=flagged.cell_id)
    assert cell.rationale == NEW and cell.rationale_rewritten_at is not None
    assert (cell.verdict, cell.proof, cell.quality) == (Verdict.PARTIAL, Proof.PROBED, 5)


@pytest.mark.django_db
def test_a_rationale_sent_with_a_rejection_is_ignored(flagged, moderator):
    client = Client()
    client.force_login(moderator)
    url = f"/admin/flags/reviewitem/{flagged.item_id}/change/"
    data = page_form(client, url, "review-form", decision="reject", note="No.", rationale=NEW)
    assert client.post(url, data).status_code == 302
    assert Cell.objects.get(pk=flagged.cell_id).rationale == OLD


@pytest.mark.django_db
def test_the_review_page_offers_the_rationale_and_keeps_it_when_sent_back_unchanged(
    flagged, moderator
):
    client = Client()
    client.force_login(moderator)
    url = f"/admin/flags/reviewitem/{flagged.item_id}/change/"
    data = page_form(client, url, "review-form", decision="uphold", note="Docs.")
    assert data["rationale"] == OLD
    data["rationale"] = "  " + OLD.replace(" ", "\r\n", 1) + "\n"  # as a browser may send it
    assert client.post(url, data).status_code == 302
    cell = Cell.objects.get(pk=flagged.cell_id)
    assert cell.rationale == OLD and cell.rationale_predates is not None
    assert cell.rationale_rewritten_at is None


@pytest.mark.django_db
def test_a_rationale_emptied_on_the_review_page_keeps_the_old_one(flagged, moderator):
    client = Client()
    client.force_login(moderator)
    url = f"/admin/flags/reviewitem/{flagged.item_id}/change/"
    data = page_form(client, url, "review-form", decision="uphold", note="Docs.", rationale="")
    assert client.post(url, data).status_code == 302
    cell = Cell.objects.get(pk=flagged.cell_id)
    assert cell.rationale == OLD and cell.rationale_predates is not None
    assert cell.rationale_rewritten_at is None


@pytest.mark.django_db
def test_a_rewrite_stamped_later_than_the_correction_is_not_marked_older(flagged, moderator):
    """A clock set back must not turn an uphold into a constraint error."""
    later = timezone.now() + timezone.timedelta(hours=1)
    Cell.objects.filter(pk=flagged.cell_id).update(rationale_rewritten_at=later)
    uphold(flagged.item, moderator)
    cell = Cell.objects.get(pk=flagged.cell_id)
    assert cell.verdict == Verdict.PARTIAL and cell.rationale_predates is None


# ---------------------------------------------------------------- any sequence of writes

VALUES = [
    {"verdict": Verdict.FULL, "proof": Proof.PROBED, "quality": 8},
    {"verdict": Verdict.FULL, "proof": Proof.PROBED, "quality": 9},
    {"verdict": Verdict.PARTIAL, "proof": Proof.CLAIMED, "quality": 5},
    {"verdict": Verdict.NONE, "proof": None, "quality": 0},
]
WRITES = st.lists(
    st.one_of(
        st.tuples(
            st.just("uphold"),
            st.sampled_from(range(len(VALUES))),
            st.sampled_from([None, NEW, "A third text."]),
        ),
        st.tuples(st.just("edit"), st.sampled_from([OLD, NEW, "Edited."])),
        st.tuples(st.just("reject")),
    ),
    max_size=6,
)


@pytest.mark.django_db
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(writes=WRITES)
def test_the_marks_follow_any_sequence_of_writes(moderator, writes):
    """The marks say what happened last to the text: rewritten with a correction, or written
    before the first correction that changed the judgement since it was last written."""
    cell = CellFactory(detail_published=True)
    predates = rewritten = None
    for write in writes:
        before = Cell.objects.get(pk=cell.pk)
        if write[0] == "uphold":
            _, value, rationale = write
            flag = FlagFactory(item__cell=before)
            item = uphold(flag.item, moderator, rationale=rationale, **VALUES[value])
            at = item.change.changed_at
            if rationale is not None:
                predates, rewritten = None, at
            elif (before.verdict, before.quality) != (
                VALUES[value]["verdict"],
                VALUES[value]["quality"],
            ):
                predates = predates or at
        elif write[0] == "edit":
            if write[1] != before.rationale:
                predates = None
            cell_edit(cell=before, changes={"rationale": write[1]}, base_version=before.version)
        else:
            flag = FlagFactory(item__cell=before)
            review_item_reject(
                item=flag.item, moderator=moderator, form=DecisionForm({"note": "No."})
            )
        after = Cell.objects.get(pk=cell.pk)
        assert (after.rationale_predates, after.rationale_rewritten_at) == (predates, rewritten), (
            writes,
            write,
        )
