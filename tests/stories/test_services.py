"""cell_set_verdict: validation per field, the public record, and the recomputation it schedules."""

import pytest
from django.core.exceptions import ValidationError

from arena.models import ProductScore
from stories.models import Cell, CellChange
from stories.services import EditConflict, cell_set_verdict


@pytest.mark.django_db
def test_verdict_change_is_recorded_and_scores_follow(
    seeded_arena, django_capture_on_commit_callbacks, django_user_model
):
    user = django_user_model.objects.create_user("mod", password="x")
    cell = Cell.objects.get(
        story__text__startswith="A workflow pauses for human approval", product__slug="hatchet"
    )
    before = ProductScore.objects.get(product=cell.product)
    assert (cell.verdict, cell.quality) == ("none", 0)
    with django_capture_on_commit_callbacks(execute=True):
        change = cell_set_verdict(
            cell=cell, verdict="full", proof="probed", quality=10, by=user, note="Docs found"
        )
    assert (change.old_verdict, change.new_verdict, change.new_quality, change.changed_by) == (
        "none",
        "full",
        10,
        user,
    )
    after = ProductScore.objects.get(product=cell.product)
    assert after.pa_score > before.pa_score
    assert (after.verified, after.with_evidence) == (before.verified + 1, before.with_evidence + 1)
    seeded_arena.refresh_from_db()
    assert seeded_arena.scores_stale_since is None


@pytest.mark.django_db
def test_invalid_values_are_refused_per_field_and_nothing_changes(seeded_arena):
    cell = Cell.objects.filter(story__arena=seeded_arena, verdict="full").first()
    with pytest.raises(ValidationError) as exc:
        cell_set_verdict(cell=cell, verdict="none", proof="claimed", quality=3)
    assert set(exc.value.message_dict) == {"proof", "quality"}
    assert not CellChange.objects.exists()
    cell.refresh_from_db()
    assert cell.verdict == "full"


@pytest.mark.django_db
def test_stale_version_is_refused(seeded_arena):
    cell = Cell.objects.filter(story__arena=seeded_arena, verdict="full").first()
    cell_set_verdict(cell=cell, verdict="partial", proof="claimed", quality=5)
    with pytest.raises(EditConflict, match="changed by someone else"):
        cell_set_verdict(cell=cell, verdict="none", proof=None, quality=0, expected_version=1)
    assert CellChange.objects.count() == 1
