"""The data migration that marks rationales older than the upheld correction of their cell."""

import importlib
from datetime import timedelta

import pytest
from django.apps import apps
from django.utils import timezone

from stories.models import Cell, CellChange
from stories.values import Verdict
from tests.factories import CellChangeFactory, CellFactory

migration = importlib.import_module("stories.migrations.0008_cell_rationale_marks")


def run() -> None:
    migration.mark_rationales_older_than_their_correction(apps, None)


def corrected(cell, at, **values) -> CellChange:
    return CellChangeFactory(
        cell=cell,
        kind=CellChange.Kind.FLAG,
        old_verdict=Verdict.PARTIAL,
        old_proof="claimed",
        old_quality=5,
        changed_at=at,
        **values,
    )


@pytest.mark.django_db
def test_a_cell_corrected_by_a_flag_is_marked_with_its_first_correction():
    cell = CellFactory()
    now = timezone.now()
    first = corrected(cell, now - timedelta(days=3))
    corrected(cell, now - timedelta(days=1))
    run()
    assert Cell.objects.get(pk=cell.pk).rationale_predates == first.changed_at


@pytest.mark.django_db
def test_a_rationale_edited_after_the_correction_is_not_marked():
    now = timezone.now()
    cell = CellFactory(detail_edited_at=now)
    corrected(cell, now - timedelta(days=1))
    run()
    assert Cell.objects.get(pk=cell.pk).rationale_predates is None


@pytest.mark.django_db
def test_a_correction_after_the_last_edit_marks_it():
    now = timezone.now()
    cell = CellFactory(detail_edited_at=now - timedelta(days=2))
    corrected(cell, now - timedelta(days=3))
    later = corrected(cell, now - timedelta(days=1))
    run()
    assert Cell.objects.get(pk=cell.pk).rationale_predates == later.changed_at


@pytest.mark.django_db
@pytest.mark.parametrize("kind", [CellChange.Kind.ADMIN, CellChange.Kind.IMPORT])
def test_other_changes_and_kept_values_mark_nothing(kind):
    cell, kept = CellFactory(), CellFactory()
    CellChangeFactory(cell=cell, kind=kind, changed_at=timezone.now())
    CellChangeFactory(
        cell=kept,
        kind=CellChange.Kind.FLAG,
        old_verdict=Verdict.FULL,
        old_proof="claimed",
        old_quality=8,
        changed_at=timezone.now(),
    )
    run()
    assert not Cell.objects.filter(rationale_predates__isnull=False).exists()
