from typing import Any

from django.core.management.base import CommandParser

from arena.imports.pages import read_arena
from arena.management.report import ImportCommand


class Command(ImportCommand):
    help = (
        "Import published arena page dumps: one arena overview page and any number of head-to-head "
        "pages, in any order. Idempotent; a malformed file imports nothing and names FILE:LINE. "
        "Cells corrected by a moderator (an upheld flag or an admin edit) on or after the pages' "
        "date keep their value, and each such conflict is listed; stories and products the pages "
        "no longer list are retired, never deleted."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+", metavar="FILE")
        super().add_arguments(parser)

    def handle(
        self, *args: Any, files: list[str], overwrite_moderated: bool, **options: Any
    ) -> None:
        record, report = self.run_import(
            read_arena, files, overwrite=overwrite_moderated, check=False
        )
        self.stdout.write(
            f"{self.summary(record, report)}, {len(record.details)} with published detail, "
            f"from {len(files)} file(s)."
        )
        for line in self.report_lines(report):
            self.stdout.write(line)
