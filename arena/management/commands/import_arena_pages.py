from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.imports.pages import read_arena
from arena.imports.reading import PageError
from arena.management.report import import_record, import_report_lines, import_summary


class Command(BaseCommand):
    help = (
        "Import published arena page dumps: one arena overview page and any number of head-to-head "
        "pages, in any order. Idempotent; a malformed file imports nothing and names FILE:LINE. "
        "Cells corrected by a moderator (an upheld flag or an admin edit) on or after the pages' "
        "date keep their value, and each such conflict is listed; stories and products the pages "
        "no longer list are retired, never deleted."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+", metavar="FILE")
        parser.add_argument(
            "--overwrite-moderated",
            action="store_true",
            help="Write the pages' values over moderated cells too (recorded publicly as an "
            "import over a moderated value).",
        )

    def handle(
        self, *args: Any, files: list[str], overwrite_moderated: bool = False, **options: Any
    ) -> None:
        try:
            record = read_arena(files)
        except PageError as exc:
            raise CommandError(str(exc)) from None
        report = import_record(record, overwrite_moderated=overwrite_moderated)
        self.stdout.write(
            f"{import_summary(report)}, {report.detailed_cells} with published detail, "
            f"from {len(files)} file(s)."
        )
        for line in import_report_lines(report, read="pages"):
            self.stdout.write(line)
