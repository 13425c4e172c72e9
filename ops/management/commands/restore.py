from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import DEFAULT_DB_ALIAS

from ops import backups


class Command(BaseCommand):
    help = (
        "Restore the database from FILE (written by manage.py backup). Refuses a database that "
        "has tables unless --force: what is there is replaced. Then moves the page cache past the "
        "pages served before and bans every HTTP cache of HTTP_CACHE_PURGE_URLS."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS)
        parser.add_argument(
            "--force", action="store_true", help="replace a database that is not empty"
        )

    def handle(self, *args: Any, file: Path, database: str, force: bool, **options: Any) -> None:
        report, failed = backups.restore(database, file, force=force)
        self.stdout.write(f"Restored the database from {file}.")
        # an HTTP cache not banned serves the discarded pages until their s-maxage: said loudly
        (self.stderr if failed else self.stdout).write(report)
