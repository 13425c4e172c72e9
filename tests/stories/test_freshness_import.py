"""The import dates cells and quotes by the pages' "Evidence as of": a re-import of the same pages
writes nothing, newer pages move the dates up, a cell kept as moderated keeps its own; and the data
migration dates what was imported before the dates existed."""

import importlib
import io
import shutil
from datetime import date
from pathlib import Path

import pytest
from django.apps import apps
from django.core.management import call_command

from arena.models import Arena
from flags.forms import DecisionForm, FlagForm
from flags.services import flag_submit, review_item_uphold
from stories import freshness
from stories.models import Cell, Evidence
from tests.factories import CellChangeFactory, CellFactory, EvidenceFactory
from web.http.clients import client_hash

pytestmark = pytest.mark.django_db

SEED_AS_OF = date(2026, 9, 16)
APPROVAL = "A workflow pauses for human approval"
migration = importlib.import_module("stories.migrations.0010_fill_evidence_dates")


def import_pages(paths, capture) -> str:
    out = io.StringIO()
    with capture(execute=True):
        call_command("import_arena_pages", *paths, stdout=out)
    return out.getvalue()


def as_of(tmp_path: Path, seed_files, day: str) -> list[str]:
    """The seed pages with their "Evidence as of" date changed."""
    paths = []
    for src in seed_files:
        dst = tmp_path / Path(src).name
        shutil.copy(src, dst)
        text = dst.read_text(encoding="utf-8")
        dst.write_text(text.replace("Evidence as of 2026-09-16", f"Evidence as of {day}"))
        paths.append(str(dst))
    return paths


def test_a_reimport_of_the_same_pages_moves_no_date(
    seeded_arena, seed_files, django_capture_on_commit_callbacks
):
    before = Arena.objects.get(pk=seeded_arena.pk).content_version
    import_pages(seed_files, django_capture_on_commit_callbacks)
    assert Arena.objects.get(pk=seeded_arena.pk).content_version == before
    assert set(
        Cell.objects.filter(story__arena=seeded_arena).values_list("evidence_as_of", flat=True)
    ) == {SEED_AS_OF}


def test_newer_pages_check_every_cell_again_but_one_kept_as_moderated(
    seeded_arena, seed_files, tmp_path, moderator, django_capture_on_commit_callbacks, monkeypatch
):
    monkeypatch.setattr(freshness, "today", lambda: date(2026, 11, 30))
    cell = Cell.objects.get(story__text__startswith=APPROVAL, product__slug="hatchet")
    flag = flag_submit(
        cell=cell,
        form=FlagForm(
            {
                "reason": "wrong_verdict",
                "explanation": "The docs now describe a built-in approval step with a webhook resume.",
                "proposed_verdict": "full",
                "proposed_quality": 8,
            }
        ),
        client=client_hash("10.9.9.9"),
    )
    with django_capture_on_commit_callbacks(execute=True):
        review_item_uphold(
            item=flag.item, moderator=moderator, form=DecisionForm({"note": "Confirmed."})
        )
    assert Cell.objects.get(pk=cell.pk).evidence_as_of == date(2026, 11, 30)
    # pages as new as before (updated 2026-09-16) but with evidence checked on 2026-10-01
    out = import_pages(
        as_of(tmp_path, seed_files, "2026-10-01"), django_capture_on_commit_callbacks
    )
    assert "kept upheld flag value" in out
    others = Cell.objects.filter(story__arena=seeded_arena).exclude(pk=cell.pk)
    assert set(others.values_list("evidence_as_of", flat=True)) == {date(2026, 10, 1)}
    detailed = Evidence.objects.filter(cell__story__arena=seeded_arena).exclude(cell=cell)
    assert set(detailed.values_list("checked_on", flat=True)) == {date(2026, 10, 1)}
    assert Cell.objects.get(pk=cell.pk).evidence_as_of == date(2026, 11, 30)


def test_the_migration_dates_imported_evidence_and_later_decisions():
    cell = CellFactory(evidence_as_of=None)
    arena = cell.story.arena
    Arena.objects.filter(pk=arena.pk).update(evidence_as_of=date(2026, 3, 1))
    quote = EvidenceFactory(cell=cell, checked_on=None)
    corrected = CellFactory(story=cell.story, product__arena=arena, evidence_as_of=None)
    CellChangeFactory(cell=corrected, kind="flag")  # upheld today
    migration.fill_evidence_dates(apps, None)
    assert Evidence.objects.get(pk=quote.pk).checked_on == date(2026, 3, 1)
    assert Cell.objects.get(pk=cell.pk).evidence_as_of == date(2026, 3, 1)
    assert Cell.objects.get(pk=corrected.pk).evidence_as_of == freshness.today()
