from typing import Any

from django.core.management.base import CommandParser

from arena.imports.arena_file import read_arena_json
from arena.management.report import ImportCommand


class Command(ImportCommand):
    help = (
        "Create or update an arena from an arena file (docs/arena-format.md), as `export_arena` "
        "writes it. The file is checked whole against the format's JSON Schema and rules first; "
        "an error names FILE: /json/pointer: reason and imports nothing. Idempotent and atomic. "
        "A cell, story or product a moderator or an editor changed after the import that last "
        "wrote it keeps every part of it, and each such conflict is listed; a file dated after "
        "today is refused; stories and products the file no longer lists are retired, never "
        "deleted."
    )
    values, given, where = "the file's values", "the file gives no", "in the file"

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", metavar="FILE")
        parser.add_argument(
            "--check",
            action="store_true",
            help="Only check the file: the import runs and is rolled back (nothing is written), "
            "so every rule the import applies is checked; exit 1 with the errors if any.",
        )
        super().add_arguments(parser)

    def handle(
        self, *args: Any, file: str, check: bool, overwrite_moderated: bool, **options: Any
    ) -> None:
        # --check runs the very import, rolled back: the same rules, the same messages
        record, report = self.run_import(
            read_arena_json, file, overwrite=overwrite_moderated, check=check
        )
        lines = self.report_lines(report)
        if check:
            ov = record.overview
            self.stdout.write(
                f"{file}: a valid arena file: {ov.name!r}, {len(ov.products)} products, "
                f"{len(ov.stories)} stories, {ov.cell_count} cells, "
                f"{len(record.sources or ())} sources. Nothing was imported"
                + ("; the import would report:" if lines else ".")
            )
        else:
            self.stdout.write(f"{self.summary(record, report)}, from {file}.")
        for line in lines:
            self.stdout.write(line)
