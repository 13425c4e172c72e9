"""The import service: an arena written from a record of ``pages`` or ``arena_file``, in one
transaction (docs/importing.md says the rules)."""

from __future__ import annotations

from django.db import connection, transaction

from arena.imports.cells import import_cells
from arena.imports.checks import import_arena_find
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
from core.text import arena_slugify
from stories.models import Story


@transaction.atomic
def arena_import(*, record: ArenaRecord, overwrite_moderated: bool = False) -> ImportReport:
    """Build or update an arena; twice = once. What a moderator or an editor changed after the
    import that last wrote it is kept and reported (``overwrite_moderated``: written over, recorded
    publicly); what the pages no longer list is retired, never deleted."""
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
    """``arena_import`` rolled back, deferred constraints checked first: ``--check`` applies every
    rule the import does, with the same messages."""
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
