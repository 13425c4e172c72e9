"""The import service: an arena written from the ``ArenaRecord`` of either reader, in one
transaction (docs/importing.md says the rules)."""

from __future__ import annotations

from django.db import transaction

from arena.imports.cells import import_cells
from arena.imports.reading import ArenaRecord
from arena.imports.rows import (
    import_adjacent,
    import_categories,
    import_personas,
    import_products,
    import_sources,
    import_stories,
    prune_structure,
)
from arena.imports.run import ImportReport, ImportRun, import_arena_find, keep_edited, sync_row
from arena.models import Arena, ProductScore
from arena.recompute import arena_mark_stale
from core.text import arena_slugify
from stories.models import Story

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


@transaction.atomic
def arena_import(*, record: ArenaRecord, overwrite_moderated: bool = False) -> ImportReport:
    """Build or update an arena; twice = once. Moderated or edited values are kept and reported
    (``overwrite_moderated``: written over, recorded publicly); rows no longer listed retire."""
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
    run = ImportRun(record=record, arena=arena, report=report, overwrite=overwrite_moderated)
    if found is None:
        report.count("arena", "added")
    else:
        keep_edited(run, arena, fields, "arena", f"the arena {ov.name!r}")
        if sync_row(arena, fields):
            report.count("arena", "changed")
    for step in STEPS:
        step(run)
    if report.wrote or not ProductScore.objects.filter(arena=arena).exists():
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
