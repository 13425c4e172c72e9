from typing import Any

from django.core.management.base import CommandParser

from arena.imports.arena_file import read_arena_json
from arena.management.report import ImportCommand


class Command(ImportCommand):
    help = (
        "Create or update an arena from an arena file (docs/arena-format.md), as `export_arena` "
        "writes it; an error names FILE: /json/pointer: reason and imports nothing. Idempotent "
        "and atomic; docs/importing.md says what is kept, refused and retired."
    )

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
        run = self.run_import(read_arena_json, file, overwrite=overwrite_moderated, check=check)
        ov, first = run.record.overview, f"{run.summary()}, from {file}."
        if check:
            first = (
                f"{file}: a valid arena file: {ov.name!r}, {len(ov.products)} products, "
                f"{len(ov.stories)} stories, {len(run.record.details)} cells, "
                f"{len(run.record.sources or ())} sources. Nothing was imported"
                + ("; the import would report:" if run.report_lines() else ".")
            )
        self.stdout.write("\n".join([first, *run.report_lines()]))
