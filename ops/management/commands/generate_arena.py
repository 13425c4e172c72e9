from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.text import slug_problem
from ops.generate import arena_generate


class Command(BaseCommand):
    help = "Build a synthetic arena of N products × M stories with plausible cells (the slug must be free)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--slug", required=True)
        parser.add_argument("--products", type=int, required=True)
        parser.add_argument("--stories", type=int, required=True)
        parser.add_argument("--seed", type=int, default=0)

    def handle(
        self, *args: Any, slug: str, products: int, stories: int, seed: int, **options: Any
    ) -> None:
        if problem := slug_problem(slug):
            raise CommandError(f"--slug {problem}")
        try:
            arena = arena_generate(slug=slug, products=products, stories=stories, seed=seed)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"Generated {arena.slug}: {products} products × {stories} stories.")
