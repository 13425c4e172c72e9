"""The migrations of the record's rules upgrade a live database: the slug rule's mend the slugs an
older release let in (a trailing line break, a ``vs`` word) before adding the constraints (run on a
real database file migrated to the release before, holding such rows), and the edit marks count an
edit the old rule let an import write over as taken up."""

import importlib
import os
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings

from products.models import Product
from stories.models import Cell, Story

ROOT = Path(settings.BASE_DIR)


def manage(db: Path, *args: str) -> None:
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{db}",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    subprocess.run(
        [sys.executable, "manage.py", *args, "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )


def test_upgrading_a_database_with_old_slugs_mends_them(tmp_path):
    db = tmp_path / "old.sqlite3"
    manage(db, "migrate", "products", "0005_edits_since_import")
    manage(db, "migrate", "arena", "0008_structure_imported")
    with sqlite3.connect(db) as con:
        con.execute(
            "INSERT INTO arena_arena (slug, name, description, content_version, change_seq,"
            " computed_seq, version) VALUES ('old\n', 'Old', '', 0, 0, 0, 1)"
        )
        arena = con.execute("SELECT id FROM arena_arena").fetchone()[0]
        for pos, slug in enumerate(["vs-code", "kite-vs-notes", "kite-versus-notes", "fine"]):
            con.execute(
                "INSERT INTO products_product (arena_id, name, slug, tier, position, version,"
                " page_name) VALUES (?, ?, ?, '', ?, 1, '')",
                (arena, f"P{pos}", slug, pos),
            )
    manage(db, "migrate")
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT slug FROM arena_arena").fetchone()[0] == "old"
        slugs = [r[0] for r in con.execute("SELECT slug FROM products_product ORDER BY position")]
    assert slugs == ["versus-code", "kite-versus-notes-2", "kite-versus-notes", "fine"]


stories_marks = importlib.import_module("stories.migrations.0011_edits_since_import")
products_marks = importlib.import_module("products.migrations.0005_edits_since_import")


@pytest.mark.django_db
def test_edits_the_old_rule_let_an_import_overwrite_count_as_taken_up(seeded_arena):
    """The pages are dated 2026-09-16: an edit before then was written over by their import under
    the rule before this one; an edit after it is still the editor's, and the next import keeps it."""
    before, after = datetime(2026, 9, 1, tzinfo=UTC), datetime(2026, 11, 30, tzinfo=UTC)
    old, new = Story.objects.filter(arena=seeded_arena).order_by("position")[:2]
    Story.all_objects.filter(pk=old.pk).update(edited_at=before)
    Story.all_objects.filter(pk=new.pk).update(edited_at=after)
    first, second = Product.objects.filter(arena=seeded_arena).order_by("position")[:2]
    Product.all_objects.filter(pk=first.pk).update(edited_at=before)
    Product.all_objects.filter(pk=second.pk).update(edited_at=after)
    cell = Cell.objects.filter(story=new).first()
    Cell.objects.filter(pk=cell.pk).update(detail_edited_at=before)
    stories_marks.mark_edits(apps, None)
    products_marks.mark_edits(apps, None)
    assert not Story.all_objects.get(pk=old.pk).edited_since_import
    assert Story.all_objects.get(pk=new.pk).edited_since_import
    assert not Product.all_objects.get(pk=first.pk).edited_since_import
    assert Product.all_objects.get(pk=second.pk).edited_since_import
    assert Cell.objects.get(pk=cell.pk).edited_at == before
    assert not Cell.objects.get(pk=cell.pk).edited_since_import
