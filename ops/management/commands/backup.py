from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import DEFAULT_DB_ALIAS

from ops import backups


class Command(BaseCommand):
    help = (
        "Back the whole database up into FILE: pg_dump's custom format on PostgreSQL, a copy of "
        "the database file on SQLite (manage.py restore reads either back)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS)

    def handle(self, *args: Any, file: Path, database: str, **options: Any) -> None:
        backups.backup(database, file)
        self.stdout.write(f"Backed up the database to {file} ({file.stat().st_size} bytes).")
