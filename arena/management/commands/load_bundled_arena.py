from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from arena.imports.pages import read_arena
from arena.imports.service import arena_import
from arena.models import Arena


class Command(BaseCommand):
    help = "Load the arena pages bundled with the site when the database has no arena yet (--force: always)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--force", action="store_true")

    def handle(self, *args: Any, force: bool, **options: Any) -> None:
        if Arena.objects.exists() and not force:
            self.stdout.write("Arenas already loaded; nothing to do.")
            return
        files = sorted(str(p) for p in settings.BUNDLED_ARENA_DIR.glob("*.txt"))
        record = read_arena(files)
        arena = arena_import(record=record).arena
        ov = record.overview
        self.stdout.write(
            f"Loaded {arena.name}: {len(ov.stories)} stories, {len(ov.stories) * len(ov.products)} cells."
        )
