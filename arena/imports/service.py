"""The import service: an arena built or updated from parsed pages or an arena file
(``arena.importer`` parses them), in one transaction, step by step (``arena.importing``'s modules).
See docs/importing.md."""

from __future__ import annotations

from datetime import date

from django.db import connection, transaction

from arena.imports.cells import import_cells
from arena.imports.checks import ImportRefused, import_arena_find
from arena.imports.limits import future_problem
from arena.imports.records import ArenaRecord
from arena.imports.rows import import_products, import_stories
from arena.imports.run import ImportReport, ImportRun, keep_edited, sync_row
from arena.imports.structure import (
    import_adjacent,
    import_categories,
    import_personas,
    import_sources,
    prune_structure,
)
from arena.models import Arena, ProductScore
from arena.recompute import arena_mark_stale
from arena.text import arena_slugify
from stories.models import Story


def import_date_errors(record: ArenaRecord) -> list[str]:
    """The dates a record claims after today (the server's date): a file or page dated in the
    future is refused whole, so no claimed date can outrank a moderator's decision of today. (An
    arena file's reader refuses them first, naming each by its pointer; this guards page dumps.)"""
    ov = record.overview
    claims: list[tuple[str, date | None]] = [
        ("its updated date", ov.updated),
        ("its evidence date", ov.evidence_as_of),
    ]
    for name, product in (record.products or {}).items():
        claims.append((f"the popularity date of {name!r}", product.popularity_as_of))
        claims.append((f"the first release of {name!r}", product.first_release))
        claims.append((f"the latest release of {name!r}", product.latest_release))
    for (text, name), detail in record.details.items():
        claims.append((f"the evidence date of {name!r} on “{text}”", detail.evidence_as_of))
        claims.extend(
            (f"the date of quote {i + 1} of {name!r} on “{text}”", e.checked_on)
            for i, e in enumerate(detail.evidence)
        )
    claims.extend((f"the day source {s.key!r} was read", s.accessed) for s in record.sources or ())
    return [
        f"{ov.path}: {what} {problem} (nothing was imported)"
        for what, day in claims
        if (problem := future_problem(day))
    ]


@transaction.atomic
def arena_import(*, record: ArenaRecord, overwrite_moderated: bool = False) -> ImportReport:
    """Build or update an arena from parsed pages, in one transaction. Twice = once: a re-import of
    the same pages writes nothing and leaves the stored scores alone.

    Every part of what the site holds is compared, and the report counts what the import added,
    changed, re-dated, retired, removed and kept, per kind of row. Any change bumps the content
    version of every arena whose pages show it.

    Moderation is respected: a cell a moderator or an editor changed (its judgement, rationale or
    evidence: an upheld flag, an admin edit) after an import last wrote it keeps every part, and
    the report names each such conflict; so do edited stories and products. "After" is the
    server's own time, never a date the pages claim; pages dated in the future are refused.
    ``overwrite_moderated`` writes the page's values instead, recorded publicly as an import over
    a moderated value. Stories and products that vanish from the pages are retired (hidden from
    pages and scores), never deleted: their flags, decisions and history stay.
    """
    errors = import_date_errors(record)
    if errors:
        raise ImportRefused("\n".join(errors))
    run = _import_arena(record, overwrite=overwrite_moderated)
    for step in STEPS:
        step(run)
    ov, report, arena = record.overview, run.report, run.arena
    report.changed = report.wrote
    report.stories = len(ov.stories)
    report.cells = len(ov.stories) * len(ov.products)
    report.detailed_cells = len(record.details)
    if report.changed or not ProductScore.objects.filter(arena=arena).exists():
        arena_mark_stale(arena_id=arena.pk)
    # a persona's label shows on the pages of every arena that asks for it, and its slug keys
    # their stored scores
    for other in (
        Story.all_objects.filter(persona__in=run.relabelled)
        .exclude(arena=arena)
        .values_list("arena_id", flat=True)
        .distinct()
    ):
        arena_mark_stale(arena_id=other)
    return report


def arena_import_check(*, record: ArenaRecord, overwrite_moderated: bool = False) -> ImportReport:
    """What ``arena_import`` would do, done and then rolled back, with the database's deferred
    constraints checked before: ``--check`` runs every rule the import runs (a clash with the rows,
    a constraint), so a file it passes imports, or both refuse it with the same message. Nothing
    the import schedules after its commit (recompute, purge) runs."""
    with transaction.atomic():
        report = arena_import(record=record, overwrite_moderated=overwrite_moderated)
        connection.check_constraints()
        transaction.set_rollback(True)
    return report


# The steps of an import after the arena's own row, in order (a step reads what earlier ones found)
STEPS = (
    import_categories,
    import_personas,
    import_products,
    import_stories,
    import_cells,
    prune_structure,
    import_adjacent,
    import_sources,
)


def _import_arena(record: ArenaRecord, *, overwrite: bool) -> ImportRun:
    """The arena's own row, found by slug, else by name (an admin may have changed the slug; a
    clash is refused), or created: the run the steps share."""
    ov = record.overview
    slug = record.slug or arena_slugify(ov.name)
    found = import_arena_find(record, slug=slug)
    fields = {
        "name": ov.name,
        "description": ov.description,
        "updated": ov.updated,
        "evidence_as_of": ov.evidence_as_of,
    }
    arena = found or Arena.objects.create(slug=slug, **fields)
    report = ImportReport(arena=arena, created=found is None)
    if found is None:
        report.count("arena", "added")
    run = ImportRun(record=record, arena=arena, report=report, overwrite=overwrite)
    if not report.created:
        keep_edited(run, arena, fields, "arena", f"the arena {ov.name!r}")
        if sync_row(arena, fields):
            report.count("arena", "changed")
    return run
