import itertools
import sys
from contextlib import nullcontext
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena import dataformat
from arena.selectors.arenas import arena_get
from arena.selectors.export import arena_export_document


class Command(BaseCommand):
    help = (
        "Write an arena as an arena file (docs/arena-format.md): every row of it, no flags, no "
        "personal data. `import_arena_json` reads it back; exporting again gives the same bytes."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="The arena's slug (as in /arenas/<slug>/)")
        parser.add_argument(
            "-o", "--output", metavar="FILE", help="Write to FILE instead of standard output"
        )

    def handle(self, *args: Any, slug: str, output: str | None = None, **options: Any) -> None:
        arena = arena_get(slug=slug)
        if arena is None:
            raise CommandError(f"no arena has the slug {slug!r}")
        document = arena_export_document(arena=arena)
        written = itertools.count()  # the cells come as they are written: counted on the way
        document["cells"] = (cell for cell, _ in zip(document["cells"], written, strict=False))
        try:
            with open(output, "wb") if output else nullcontext(sys.stdout.buffer) as out:
                out.writelines(dataformat.chunked(dataformat.document_lines(document)))
                out.flush()
        except OSError as exc:
            raise CommandError(f"cannot write {output}: {exc}") from None
        if output:
            self.stderr.write(
                f"Exported {arena.name!r} to {output}: {len(document['stories'])} stories, "
                f"{next(written)} cells."
            )
