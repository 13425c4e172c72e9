"""``manage.py backup`` and ``restore``: the database in one file (``pg_dump -Fc`` or SQLite's
backup API); a restore moves the page cache on and bans the HTTP caches (docs/operations.md)."""

from __future__ import annotations

import glob
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import CommandError
from django.db import DatabaseError, connections

from arena import cachetags
from arena.recompute import content_restored, content_versions_served
from ops.purge import http_cache_purge

PG_MAGIC = b"PGDMP"  # pg_dump's custom format begins with it
SQLITE_MAGIC = b"SQLite format 3\x00"
PG_BIN_GLOB = "/usr/lib/postgresql/*/bin"


def engine(alias: str) -> str:
    connection = connections[alias]
    if connection.vendor not in ("postgresql", "sqlite"):
        raise CommandError(f"Backups cover PostgreSQL and SQLite, not {connection.vendor}.")
    if connection.in_atomic_block:
        # SQLite's backup API waits forever on its own lock; a dump misses what is uncommitted
        raise CommandError("A backup or restore runs outside a transaction.")
    return str(connection.vendor)


def pg_program(name: str) -> str:
    """The client program ``name``: on PATH, else the newest in /usr/lib/postgresql/*/bin."""
    folders = sorted(glob.glob(PG_BIN_GLOB), key=lambda p: int(Path(p).parent.name))
    found = shutil.which(name) or shutil.which(name, path=os.pathsep.join(reversed(folders)))
    if found is None:
        raise CommandError(f"{name} not found on PATH nor in {PG_BIN_GLOB}: install its client.")
    return found


def pg_run(alias: str, program: str, *args: str) -> None:
    """Run a PostgreSQL client on the database; the password in PGPASSWORD, never in argv."""
    db: dict[str, Any] = connections[alias].settings_dict
    command = [pg_program(program), "--dbname", str(db["NAME"])]
    for flag, key in (("--host", "HOST"), ("--port", "PORT"), ("--username", "USER")):
        if db.get(key):
            command += [flag, str(db[key])]
    env = {**os.environ, "PGPASSWORD": str(db["PASSWORD"])} if db.get("PASSWORD") else None
    done = subprocess.run([*command, *args], env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise CommandError(f"{program} failed: {done.stderr.strip()}")


def backup(alias: str, target: Path) -> None:
    """Write the database to ``target``, through a temporary file renamed at the end."""
    if not target.parent.is_dir():
        raise CommandError(f"{target.parent}: no such folder.")
    partial = target.with_name(f".{target.name}.partial")
    try:
        if engine(alias) == "postgresql":
            pg_run(alias, "pg_dump", "--format=custom", "--file", str(partial))
        else:
            sqlite_copy(alias, partial, out=True)
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)


def restore(alias: str, source: Path, *, force: bool) -> tuple[str, list[str]]:
    """Replace the database with ``source`` (one that has tables only with ``force``), then move
    the caches past what it replaced: what was done to them, and the HTTP caches not banned."""
    vendor = engine(alias)
    if not source.is_file():
        raise CommandError(f"{source}: no such file.")
    magic = PG_MAGIC if vendor == "postgresql" else SQLITE_MAGIC
    with source.open("rb") as f:
        head = f.read(len(magic))
    if head != magic:
        wanted = "pg_dump's custom format" if vendor == "postgresql" else "an SQLite database"
        raise CommandError(f"{source}: not a backup of this database ({wanted} expected).")
    tables = len(connections[alias].introspection.table_names())
    if tables and not force:
        raise CommandError(
            f"The database is not empty ({tables} tables): restoring replaces them. "
            "Restore into an empty database, or pass --force."
        )
    past = content_versions_served(using=alias) if tables else 0
    if vendor == "postgresql":
        connections[alias].close()
        once = ["--single-transaction", "--exit-on-error"]
        pg_run(alias, "pg_restore", "--clean", "--if-exists", "--no-owner", *once, str(source))
    else:
        sqlite_copy(alias, source, out=False)
    try:
        epoch = content_restored(past=past, using=alias)
    except DatabaseError as exc:
        raise CommandError(
            f"Restored the database from {source}, but could not move the page cache past the "
            f"pages served before ({exc}): run the restore again."
        ) from exc
    urls = list(settings.HTTP_CACHE_PURGE_URLS)
    made = f"new cache epoch {epoch}" if epoch else "cache epoch made by migrate"
    report = f"page cache: versions moved past {past} ({made}); "
    if not urls:
        return report + "HTTP caches: none configured (HTTP_CACHE_PURGE_URLS)", []
    failed = http_cache_purge([cachetags.ALL], urls)
    report += f"HTTP caches banned: {len(urls) - len(failed)} of {len(urls)}"
    if failed:
        report += (
            f"; not banned: {', '.join(failed)} (ban them by hand: varnishadm ban obj.status != 0)"
        )
    return report, failed


def sqlite_copy(alias: str, path: Path, *, out: bool) -> None:
    """The database into the file at ``path`` (``out``), or the file into the database."""
    connection = connections[alias]
    connection.ensure_connection()
    with sqlite3.connect(path) as other:
        source, target = (connection.connection, other) if out else (other, connection.connection)
        source.backup(target)
    other.close()
