"""cell_correct: validation per field, the public record, and the recomputation it schedules."""

import pytest
from django.core.exceptions import ValidationError

from arena.models import ProductScore
from arena.recompute import arena_recompute_scores
from core.conflicts import EditConflict
from stories.models import CellChange
from stories.services import cell_correct
from stories.values import CellValue, Proof, Verdict
from tests.factories import CellFactory, UserFactory

pytestmark = pytest.mark.django_db


def to_full(cell, **kwargs):
    return cell_correct(cell=cell, value=CellValue(Verdict.FULL, Proof.PROBED, 10), **kwargs)


def test_a_verdict_change_is_recorded_publicly():
    cell, user = CellFactory(none=True), UserFactory()
    change = to_full(cell, by=user, note="Docs found")
    assert (change.old_verdict, change.new_verdict, change.new_quality) == ("none", "full", 10)
    assert (change.changed_by, change.note, change.kind) == (user, "Docs found", "admin")


def test_a_verdict_change_writes_the_cell_and_bumps_its_version():
    cell = CellFactory(none=True)
    to_full(cell)
    cell.refresh_from_db()
    assert (cell.verdict, cell.proof, cell.quality, cell.version) == ("full", "probed", 10, 2)


def test_the_scores_follow_a_verdict_change(django_capture_on_commit_callbacks):
    cell = CellFactory(none=True)
    CellFactory(story__arena=cell.story.arena)  # a second product to rank against
    arena_recompute_scores(arena_id=cell.story.arena_id)
    before = ProductScore.objects.get(product=cell.product)
    with django_capture_on_commit_callbacks(execute=True):
        to_full(cell)
    after = ProductScore.objects.get(product=cell.product)
    assert after.pa_score > before.pa_score
    assert (after.verified, after.with_evidence) == (before.verified + 1, before.with_evidence + 1)


def test_the_scores_are_fresh_once_the_recompute_ran(django_capture_on_commit_callbacks):
    cell = CellFactory(none=True)
    with django_capture_on_commit_callbacks(execute=True):
        to_full(cell)
    arena = cell.story.arena
    arena.refresh_from_db()
    assert arena.scores_stale_since is None and arena.scores_computed_at is not None


def test_the_change_marks_the_scores_stale_until_it_commits():
    cell = CellFactory(none=True)
    to_full(cell)  # the test's transaction never commits: the recompute waits
    arena = cell.story.arena
    arena.refresh_from_db()
    assert arena.scores_pending


def test_the_same_values_record_nothing():
    cell = CellFactory()
    assert cell_correct(cell=cell, value=CellValue(cell.verdict, cell.proof, 8)) is None
    assert not CellChange.objects.exists()


def test_invalid_values_are_refused_per_field():
    cell = CellFactory()
    with pytest.raises(ValidationError) as exc:
        cell_correct(cell=cell, value=CellValue(Verdict.NONE, Proof.CLAIMED, 3))
    assert set(exc.value.message_dict) == {"proof", "quality"}


def test_invalid_values_change_nothing():
    cell = CellFactory()
    with pytest.raises(ValidationError):
        cell_correct(cell=cell, value=CellValue(Verdict.NONE, Proof.CLAIMED, 3))
    cell.refresh_from_db()
    assert cell.verdict == Verdict.FULL and not CellChange.objects.exists()


def test_a_stale_version_is_refused():
    cell = CellFactory()
    cell_correct(cell=cell, value=CellValue(Verdict.PARTIAL, Proof.CLAIMED, 5))
    with pytest.raises(EditConflict, match="changed by someone else"):
        cell_correct(cell=cell, value=CellValue(Verdict.NONE, None, 0), expected_version=1)
    assert CellChange.objects.count() == 1
