"""The moderators' audit log is append-only in PostgreSQL (the trigger function comes with the
stories app's record migration)."""

from django.db import migrations

TRIGGER = """
DROP TRIGGER IF EXISTS flags_moderatoraction_append_only ON flags_moderatoraction;
CREATE TRIGGER flags_moderatoraction_append_only BEFORE UPDATE OR DELETE ON flags_moderatoraction
    FOR EACH ROW EXECUTE FUNCTION arena_refuse_delete();
"""
DROP = "DROP TRIGGER IF EXISTS flags_moderatoraction_append_only ON flags_moderatoraction;"


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(TRIGGER, params=None)


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("flags", "0003_protect_record_one_flag_per_client"),
        ("stories", "0003_record_append_only"),
    ]
    operations = [migrations.RunPython(forwards, backwards)]
