"""The public record is append-only in the database itself: PostgreSQL refuses to change or delete a
CellChange (a trigger), whatever the caller. Cells, stories and products are protected by their foreign keys
(no ON DELETE CASCADE; Django's PROTECT on top). SQLite has the foreign keys but no trigger: its test
runner empties tables with DELETE between tests."""

from django.db import migrations

TRIGGER = """
CREATE OR REPLACE FUNCTION arena_refuse_delete() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: rows of the public record and the audit log are never changed or deleted',
        TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END;
$$ LANGUAGE plpgsql;
DROP TRIGGER IF EXISTS stories_cellchange_append_only ON stories_cellchange;
CREATE TRIGGER stories_cellchange_append_only BEFORE UPDATE OR DELETE ON stories_cellchange
    FOR EACH ROW EXECUTE FUNCTION arena_refuse_delete();
"""
DROP = "DROP TRIGGER IF EXISTS stories_cellchange_append_only ON stories_cellchange;"


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(TRIGGER, params=None)


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP, params=None)


class Migration(migrations.Migration):
    dependencies = [("stories", "0002_retire_and_versions")]
    operations = [migrations.RunPython(forwards, backwards)]
