"""The slug rule's migrations mend the slugs an older release let in (a trailing line break, a
``vs`` word) before adding the constraints, so a live database upgrades: run on a real database file
migrated to the release before, holding such rows."""

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def manage(db: Path, *args: str) -> None:
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{db}",
        "DJANGO_SETTINGS_MODULE": "arena.settings",
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
