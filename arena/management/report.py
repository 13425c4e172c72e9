"""What both import commands share: the ``--overwrite-moderated`` flag, the import run in one
transaction (its refusals the command's error) and the report printed after it."""

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
    # how the help and the report name what was read
    values, given, where = "the pages' values", "no page gives", "on the pages"

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--overwrite-moderated",
            action="store_true",
            help=f"Write {self.values} over moderated cells too (recorded publicly as an import "
            "over a moderated value).",
        )

    def run_import(
        self, reader: Callable[[Any], ArenaRecord], source: Any, *, overwrite: bool, check: bool
    ) -> tuple[ArenaRecord, ImportRun]:
        """The record read and imported; ``check``: rolled back after the deferred constraints
        are checked (the same rules and messages)."""
        try:
            record = reader(source)
            with transaction.atomic():
                report = arena_import(record=record, overwrite_moderated=overwrite)
                if check:
                    connection.check_constraints()
                    transaction.set_rollback(True)
        except (PageError, ImportRefused) as exc:
            raise CommandError(str(exc)) from None
        except EditConflict as exc:
            raise CommandError(
                f"a cell changed while the import ran; nothing was imported, run it again ({exc})"
            ) from None
        except IntegrityError as exc:
            # a rule the checks above missed: still the command's error, never a traceback
            raise CommandError(
                f"{record.overview.path}: the database refused the import ({exc}); nothing was "
                "imported"
            ) from None
        return record, report

    def summary(self, record: ArenaRecord, report: ImportRun) -> str:
        """``Created arena 'Name' (slug): 53 stories, 318 cells`` (or Updated, or Unchanged:)."""
        verb = "Created" if report.created else ("Updated" if report.wrote else "Unchanged:")
        arena, stories = report.arena, len(record.overview.stories)
        cells = stories * len(record.overview.products)
        return f"{verb} arena {arena.name!r} ({arena.slug}): {stories} stories, {cells} cells"

    def report_lines(self, report: ImportRun) -> list[str]:
        """The report's lines after the summary."""
        given, where = self.given, self.where
        lines = report.tally_lines()
        lines += [
            f"{given} the weight of {t!r}: default weight used"
            for t in report.default_weight_stories
        ]
        lines += report.kept
        if report.kept:
            lines.append(
                f"{len(report.kept)} moderated or edited value(s) kept; --overwrite-moderated "
                f"writes {self.values} over them"
            )
        lines += report.overwritten
        lines += [
            f"retired {what} (no longer {where}; its history is kept)" for what in report.retired
        ]
        lines += [f"restored {what} (back {where})" for what in report.restored]
        lines += [f"removed {what} (no longer {where})" for what in report.removed]
        return [f"  {line}" for line in lines]
