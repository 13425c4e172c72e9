import sys
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena import dataformat
from arena.selectors.arenas import arena_get
from arena.selectors.export import arena_export_document


class Command(BaseCommand):
    help = (
        "Write an arena as an arena file (docs/arena-format.md): the arena, its categories, "
        "personas, products, stories, every cell with its evidence, and the adjacent arenas. No "
        "flags, no personal data. `import_arena_json` reads it back; exporting again gives the "
        "same bytes."
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
        started = time.perf_counter()
        document = arena_export_document(arena=arena)
        if not output:
            sys.stdout.buffer.writelines(dataformat.document_chunks(document))
            sys.stdout.buffer.flush()
            return
        try:
            with open(output, "wb") as out:
                size = sum(out.write(chunk) for chunk in dataformat.document_chunks(document))
        except OSError as exc:
            raise CommandError(f"cannot write {output}: {exc}") from None
        self.stderr.write(
            f"Exported {arena.name!r} to {output}: {len(document['products'])} products, "
            f"{len(document['stories'])} stories, {len(document['cells'])} cells, "
            f"{size} bytes in {time.perf_counter() - started:.2f} s."
        )
