from django.core.management.base import BaseCommand, CommandError

from arena.importer import PageError, read_arena
from arena.management.report import import_report_lines
from arena.services import ImportRefused, arena_import
from stories.services import EditConflict


class Command(BaseCommand):
    help = (
        "Import published arena page dumps: one arena overview page and any number of head-to-head "
        "pages, in any order. Idempotent; a malformed file imports nothing and names FILE:LINE. "
        "Cells corrected by a moderator (an upheld flag or an admin edit) on or after the pages' "
        "date keep their value, and each such conflict is listed; stories and products the pages "
        "no longer list are retired, never deleted."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", metavar="FILE")
        parser.add_argument(
            "--overwrite-moderated",
            action="store_true",
            help="Write the pages' values over moderated cells too (recorded publicly as an "
            "import over a moderated value).",
        )

    def handle(self, *args, files, overwrite_moderated=False, **options):
        try:
            record = read_arena(files)
        except PageError as exc:
            raise CommandError(str(exc)) from None
        try:
            report = arena_import(record=record, overwrite_moderated=overwrite_moderated)
        except ImportRefused as exc:
            raise CommandError(str(exc)) from None
        except EditConflict as exc:
            raise CommandError(
                f"a cell changed while the import ran; nothing was imported, run it again ({exc})"
            ) from None
        arena = report.arena
        verb = "Created" if report.created else ("Updated" if report.changed else "Unchanged:")
        self.stdout.write(
            f"{verb} arena {arena.name!r} ({arena.slug}): {report.stories} stories, {report.cells} cells, "
            f"{report.detailed_cells} with published detail, from {len(files)} file(s)."
        )
        for line in import_report_lines(report, read="pages"):
            self.stdout.write(line)
