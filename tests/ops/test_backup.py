"""Backups restore: ``manage.py backup`` of a PostgreSQL database with moderated changes, restored
by ``manage.py restore`` into an empty second database, gives every table the same number of rows
and every arena the same JSON and CSV exports, byte for byte (``make backup-check`` runs this file
verbosely on a throwaway PostgreSQL; it prints a short report). Bad input is a clear error on any
database: a missing file, a file of the wrong format, a restore over a database that is not empty.
A restore over a database that served pages moves the caches past them (what it prints, the
ETags and pages answered after it)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import psycopg
import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import connection

from arena.models import Arena, CacheEpoch
from flags.forms import DecisionForm, FlagForm
from flags.services import flag_submit, review_item_uphold
from stories.models import Cell, Story
from web.http.clients import client_hash

# What one side shows, measured by the same code in a process of its own on either database: every
# table's row count (all tables of the schema) and every arena's exports.
SNAPSHOT = """
import json
from django.db import connection
from django.test import Client
from arena.models import Arena
with connection.cursor() as cursor:
    tables = connection.introspection.table_names(cursor)
    counts = {}
    for table in tables:
        cursor.execute(f"SELECT count(*) FROM {connection.ops.quote_name(table)}")
        counts[table] = cursor.fetchone()[0]
exports = {}
client = Client()
for slug in Arena.objects.order_by("slug").values_list("slug", flat=True):
    for kind in ("json", "csv"):
        response = client.get(f"/arenas/{slug}/export.{kind}")
        assert response.status_code == 200, (slug, kind, response.status_code)
        body = b"".join(response.streaming_content) if response.streaming else response.content
        exports[f"{slug}/export.{kind}"] = body.decode()
print("SNAPSHOT " + json.dumps({"tables": counts, "exports": exports}))
"""

postgres_only = pytest.mark.skipif(
    os.environ.get("DATABASE_URL", "").split(":")[0] not in ("postgres", "postgresql"),
    reason="the backup round trip is PostgreSQL's (pg_dump/pg_restore); it runs in the "
    "PostgreSQL pass (make test-postgres, make backup-check: scripts/with-postgres.sh)",
)


def _database_url(name: str) -> str:
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST']}:{db['PORT']}/{name}"


def _manage(database_url: str, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_ALLOW")}
    env |= {"DATABASE_URL": database_url, "PAGE_CACHE": "0", "DEBUG": "1"}
    env.pop("CELERY_BROKER_URL", None)
    env.pop("REDIS_URL", None)
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _snapshot(database_url: str) -> dict:
    out = _manage(database_url, "shell", "-c", SNAPSHOT)
    line = next(x for x in out.splitlines() if x.startswith("SNAPSHOT "))
    return json.loads(line.removeprefix("SNAPSHOT "))


def _moderate(moderator) -> Cell:
    """File a flag on a verdict and uphold it with a correction, through the services."""
    story = Story.objects.get(text__startswith="I run LLM agent loops")
    cell = Cell.objects.get(story=story, product__slug="inngest")
    flag = flag_submit(
        cell=cell,
        form=FlagForm(
            {"reason": "wrong_quality", "explanation": "The docs say a plug-in is needed."}
        ),
        client=client_hash("10.9.9.9"),
    )
    review_item_uphold(
        item=flag.item,
        moderator=moderator,
        form=DecisionForm({"note": "Checked the docs.", **{"quality": 3}}),
    )
    cell.refresh_from_db()
    assert cell.quality == 3
    return cell


@pytest.fixture
def second_database():
    """An empty database beside the test database, in the same cluster; dropped afterwards."""
    name = f"{connection.settings_dict['NAME']}_restored"
    admin = _database_url("postgres")
    with psycopg.connect(admin, autocommit=True) as db:
        db.execute(f'DROP DATABASE IF EXISTS "{name}"')
        db.execute(f'CREATE DATABASE "{name}"')
    yield _database_url(name)
    with psycopg.connect(admin, autocommit=True) as db:
        db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_a_backup_restores_into_an_empty_database_with_the_same_rows_and_exports(
    seeded_arena, moderator, second_database, tmp_path
):
    _moderate(moderator)
    source = _database_url(connection.settings_dict["NAME"])
    before = _snapshot(source)
    dump = tmp_path / "arena.dump"

    call_command("backup", str(dump))
    assert dump.read_bytes().startswith(b"PGDMP")
    _manage(second_database, "restore", str(dump))
    after = _snapshot(second_database)

    # the one row a restore writes: the page cache's new epoch
    assert after["tables"].pop("arena_cacheepoch") == 1
    before["tables"].pop("arena_cacheepoch")
    assert after["tables"] == before["tables"]
    assert after["exports"].keys() == before["exports"].keys() and before["exports"]
    for name, text in before["exports"].items():
        assert after["exports"][name].encode() == text.encode(), name
    assert before["tables"]["flags_moderatoraction"] >= 1  # the upheld flag came along
    rows = sum(before["tables"].values())
    export_bytes = sum(len(t.encode()) for t in before["exports"].values())
    print(
        f"\nbackup-check: {dump.stat().st_size} byte dump; {len(before['tables'])} tables compared,"
        f" {rows} rows, equal; {len(before['exports'])} exports compared, {export_bytes} bytes,"
        " byte for byte equal: OK"
    )

    # the restored database is not empty now: a second restore is refused without --force
    with pytest.raises(AssertionError, match="not empty"):
        _manage(second_database, "restore", str(dump))
    _manage(second_database, "restore", "--force", str(dump))
    again = _snapshot(second_database)["tables"]
    assert again.pop("arena_cacheepoch") == 1 and again == before["tables"]


@pytest.mark.django_db(transaction=True)
def test_restore_names_a_missing_file(tmp_path):
    with pytest.raises(CommandError, match="no such file"):
        call_command("restore", str(tmp_path / "nothing.dump"), force=True)


@pytest.mark.django_db(transaction=True)
def test_restore_refuses_a_file_of_the_wrong_format(tmp_path):
    wrong = tmp_path / "notes.dump"
    wrong.write_text("id,name\n1,not a backup\n")
    with pytest.raises(CommandError, match="not a backup of this database"):
        call_command("restore", str(wrong), force=True)


@pytest.mark.django_db(transaction=True)
def test_restore_refuses_a_database_that_is_not_empty(tmp_path):
    dump = tmp_path / "arena.dump"
    call_command("backup", str(dump))
    with pytest.raises(CommandError, match="not empty.*--force"):
        call_command("restore", str(dump))


def test_backup_names_a_missing_folder(tmp_path, transactional_db):
    with pytest.raises(CommandError, match="no such folder"):
        call_command("backup", str(tmp_path / "gone" / "arena.dump"))
    assert not any(tmp_path.iterdir())


@pytest.mark.django_db(transaction=True)
def test_a_sqlite_backup_restores_what_was_there(tmp_path, moderator):
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's round trip (the PostgreSQL one is the test above)")
    from django.contrib.auth.models import User

    dump = tmp_path / "arena.sqlite3"
    call_command("backup", str(dump))
    assert dump.read_bytes().startswith(b"SQLite format 3\x00")
    User.objects.filter(username="mod").delete()
    call_command("restore", str(dump), force=True)
    assert User.objects.filter(username="mod").exists()


@pytest.mark.django_db
def test_a_backup_inside_a_transaction_is_refused(tmp_path):
    with pytest.raises(CommandError, match="outside a transaction"):
        call_command("backup", str(tmp_path / "arena.dump"))


@pytest.mark.django_db(transaction=True)
def test_a_restore_answers_the_discarded_pages_etags_with_the_restored_pages(
    seeded_arena, moderator, tmp_path, settings, client
):
    """In this process (its page cache and kept counts included): after a restore, the ETag and
    page of the discarded timeline are never served again, even once changes take the restored
    versions as far as the discarded ones went."""
    settings.HTTP_CACHE_PURGE_URLS = []
    story = Story.objects.get(text__startswith="I run LLM agent loops")
    cell = Cell.objects.get(story=story, product__slug="inngest")
    urls = (f"/cells/{cell.pk}.md", "/", seeded_arena.get_absolute_url())
    dump = tmp_path / "before.backup"
    call_command("backup", str(dump))
    older = client.get(urls[0]).content.decode()
    assert f"- Quality: {cell.quality}/10" in older and cell.quality != 3

    _moderate(moderator)
    newer = {url: client.get(url) for url in urls}  # kept by the page cache
    assert "- Quality: 3/10" in newer[urls[0]].content.decode()
    discarded = Arena.objects.get(pk=seeded_arena.pk).content_version

    out = io.StringIO()
    call_command("restore", str(dump), force=True, stdout=out)
    assert out.getvalue().splitlines()[1:] == [
        f"page cache: versions moved past {discarded} "
        f"(new cache epoch {CacheEpoch.objects.get().value}); "
        "HTTP caches: none configured (HTTP_CACHE_PURGE_URLS)"
    ]
    others = Cell.objects.filter(story__arena=seeded_arena).exclude(pk=cell.pk).order_by("pk")
    for n, other in enumerate([None, *others[:12]]):
        if other is not None:  # one more change: a flag
            data = FlagForm({"reason": "other", "explanation": "This verdict looks wrong to me."})
            flag_submit(cell=other, form=data, client=client_hash(f"10.8.8.{n}"))
        for url in urls:
            again = client.get(url, HTTP_IF_NONE_MATCH=newer[url]["ETag"])
            assert again.status_code == 200 and again["ETag"] != newer[url]["ETag"], url
        text = client.get(urls[0]).content.decode()
        assert f"- Quality: {cell.quality}/10" in text and "- Quality: 3/10" not in text
        if Arena.objects.get(pk=seeded_arena.pk).content_version > discarded:
            break
