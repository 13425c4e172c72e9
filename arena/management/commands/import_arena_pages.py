from django.core.management.base import BaseCommand, CommandError

from arena.importer.parser import PageError, read_arena
from arena.services import arena_import


class Command(BaseCommand):
    help = (
        "Import published arena page dumps: one arena overview page and any number of head-to-head "
        "pages, in any order. Idempotent; a malformed file imports nothing and names FILE:LINE."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", metavar="FILE")

    def handle(self, *args, files, **options):
        try:
            record = read_arena(files)
        except PageError as exc:
            raise CommandError(str(exc)) from None
        report = arena_import(record=record)
        arena = report.arena
        verb = "Created" if report.created else ("Updated" if report.changed else "Unchanged:")
        self.stdout.write(
            f"{verb} arena {arena.name!r} ({arena.slug}): {report.stories} stories, {report.cells} cells, "
            f"{report.detailed_cells} with published detail, from {len(files)} file(s)."
        )
        for text in report.default_weight_stories:
            self.stdout.write(f"  no page gives the weight of {text!r}: default weight used")
        for what in report.removed:
            self.stdout.write(f"  removed {what} (no longer on the pages)")
