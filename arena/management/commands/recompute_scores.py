from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.models import Arena
from arena.recompute import arena_recompute_scores


class Command(BaseCommand):
    help = "Recompute every product's scores of every arena (or the ones named by slug)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slugs", nargs="*", metavar="ARENA")

    def handle(self, *args: Any, slugs: list[str], **options: Any) -> None:
        arenas = Arena.objects.all()
        if slugs:
            arenas = arenas.filter(slug__in=slugs)
            if missing := set(slugs) - set(arenas.values_list("slug", flat=True)):
                raise CommandError(f"no arena with slug {', '.join(sorted(missing))}")
        for arena in arenas:
            arena_recompute_scores(arena_id=arena.pk, every=True)
            self.stdout.write(f"Recomputed {arena.slug}")
