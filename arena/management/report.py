"""What both import commands share: ``--overwrite-moderated``, the run, refusals as errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import IntegrityError, connection, transaction

from arena.imports.reading import ArenaRecord, PageError
from arena.imports.run import ImportRefused, ImportRun
from arena.imports.service import arena_import
from core.conflicts import EditConflict


class ImportCommand(BaseCommand):
    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--overwrite-moderated",
            action="store_true",
            help="Write the imported values over moderated cells too (recorded publicly as an "
            "import over a moderated value).",
        )

    def run_import(
        self, reader: Callable[[Any], ArenaRecord], source: Any, *, overwrite: bool, check: bool
    ) -> ImportRun:
        """Read and import; ``check``: roll back once the deferred constraints are checked."""
        try:
            record = reader(source)
            with transaction.atomic():
                run = arena_import(record=record, overwrite_moderated=overwrite)
                if check:
                    connection.check_constraints()
                    transaction.set_rollback(True)
        except (PageError, ImportRefused) as exc:
            raise CommandError(str(exc)) from None
        except EditConflict as exc:
            again = "a cell changed while the import ran; nothing was imported, run it again"
            raise CommandError(f"{again} ({exc})") from None
        except IntegrityError as exc:  # (a rule the checks above missed: never a traceback)
            reason = f"the database refused the import ({exc}); nothing was imported"
            raise CommandError(f"{record.overview.path}: {reason}") from None
        return run
