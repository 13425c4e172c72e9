"""What the import commands print after an import: one place for both (pages and arena files)."""

from __future__ import annotations

from collections.abc import Iterator

from arena.services import ImportReport

# How the report names what was read: page dumps or an arena file.
WORDS = {
    "pages": {"given": "no page gives", "values": "the pages' values", "where": "on the pages"},
    "file": {"given": "the file gives no", "values": "the file's values", "where": "in the file"},
}


def import_report_lines(report: ImportReport, *, read: str) -> Iterator[str]:
    """The report's lines after the summary; ``read``: ``"pages"`` or ``"file"``."""
    words = WORDS[read]
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
