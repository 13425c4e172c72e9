from typing import Any

from django.core.management.base import CommandParser

from arena.imports.pages import read_arena
from arena.management.report import ImportCommand


class Command(ImportCommand):
    help = (
        "Import published arena page dumps: one arena overview page and any number of head-to-head "
        "pages, in any order. Idempotent; a malformed file imports nothing and names FILE:LINE. "
        "docs/importing.md says what is kept, refused and retired."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+", metavar="FILE")
        super().add_arguments(parser)

    def handle(
        self, *args: Any, files: list[str], overwrite_moderated: bool, **options: Any
    ) -> None:
        run = self.run_import(read_arena, files, overwrite=overwrite_moderated, check=False)
        details = len(run.record.details)
        first = f"{run.summary()}, {details} with published detail, from {len(files)} file(s)."
        self.stdout.write("\n".join([first, *run.report_lines()]))
