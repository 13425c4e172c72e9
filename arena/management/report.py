"""The import commands' shared part: running the import service and what they print after it,
one place for both (pages and arena files)."""

from __future__ import annotations

from collections.abc import Iterator

from django.core.management.base import CommandError
from django.db import IntegrityError, connection, transaction

from arena.imports.records import ArenaRecord
from arena.imports.run import ImportRefused, ImportReport
from arena.imports.service import arena_import
from core.conflicts import EditConflict

# How the report names what was read: page dumps or an arena file.
WORDS = {
    "pages": {"given": "no page gives", "values": "the pages' values", "where": "on the pages"},
    "file": {"given": "the file gives no", "values": "the file's values", "where": "in the file"},
}


def import_record(
    record: ArenaRecord, *, overwrite_moderated: bool, check: bool = False
) -> ImportReport:
    """``arena_import``, its refusals as the command's error (nothing was imported); ``check``:
    rolled back after the deferred constraints are checked, the same rules and messages."""
    try:
        with transaction.atomic():
            report = arena_import(record=record, overwrite_moderated=overwrite_moderated)
            if check:
                connection.check_constraints()
                transaction.set_rollback(True)
        return report
    except ImportRefused as exc:
        raise CommandError(str(exc)) from None
    except EditConflict as exc:
        raise CommandError(
            f"a cell changed while the import ran; nothing was imported, run it again ({exc})"
        ) from None
    except IntegrityError as exc:
        # a rule the checks above missed: still the command's error, never a traceback
        raise CommandError(
            f"{record.overview.path}: the database refused the import ({exc}); nothing was imported"
        ) from None


def import_summary(report: ImportReport) -> str:
    """``Created arena 'Name' (slug): 53 stories, 318 cells`` (or Updated, or Unchanged:)."""
    verb = "Created" if report.created else ("Updated" if report.changed else "Unchanged:")
    arena = report.arena
    return f"{verb} arena {arena.name!r} ({arena.slug}): {report.stories} stories, {report.cells} cells"


def import_report_lines(report: ImportReport, *, read: str) -> Iterator[str]:
    """The report's lines after the summary; ``read``: ``"pages"`` or ``"file"``."""
    words = WORDS[read]
    yield from (f"  {line}" for line in report.tally_lines())
    for text in report.default_weight_stories:
        yield f"  {words['given']} the weight of {text!r}: default weight used"
    yield from (f"  {line}" for line in report.kept)
    if report.kept:
        yield (
            f"  {len(report.kept)} moderated or edited value(s) kept; --overwrite-moderated "
            f"writes {words['values']} over them"
        )
    yield from (f"  {line}" for line in report.overwritten)
    for what in report.retired:
        yield f"  retired {what} (no longer {words['where']}; its history is kept)"
    for what in report.restored:
        yield f"  restored {what} (back {words['where']})"
    for what in report.removed:
        yield f"  removed {what} (no longer {words['where']})"
