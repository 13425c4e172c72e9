"""An arena written from either reader's ``ArenaRecord`` in one transaction (docs/importing.md)."""

from __future__ import annotations

from collections.abc import Callable, Container
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from arena.imports.cells import import_cells
from arena.imports.reading import ArenaRecord, short
from arena.imports.run import (
    ImportRefused,
    ImportRun,
    day_text,
    import_arena_find,
    keep_added,
    keep_edited,
    named_rows,
    product_check,
    sync_row,
)
from arena.models import AdjacentArena, Arena, Category, Persona, ProductScore, Source
from arena.recompute import arena_mark_stale
from core.text import arena_slugify
from products.models import Product
from stories.models import Story

_OFFSET = 10_000_000  # places move this far first: unique (arena, position) holds


@transaction.atomic
def arena_import(*, record: ArenaRecord, overwrite_moderated: bool = False) -> ImportRun:
    """Build or update an arena; twice = once. Moderated or edited values are kept and reported."""
    ov = record.overview
    slug = record.slug or arena_slugify(ov.name)
    found = import_arena_find(record, slug=slug)
    fields = {k: getattr(ov, k) for k in ("name", "description", "updated", "evidence_as_of")}
    arena = found or Arena.objects.create(slug=slug, **fields)
    run = ImportRun(record, arena, overwrite=overwrite_moderated, created=found is None)
    if found is None:
        run.count("arena", "added")
    else:
        keep_edited(run, arena, fields, "arena", f"the arena {ov.name!r}")
        if sync_row(arena, fields):
            run.count("arena", "changed")
    # in order: a step reads what earlier ones found
    _categories(run)
    _personas(run)
    _products(run)
    _stories(run)
    import_cells(run)
    _prune_structure(run)
    _adjacent(run)
    _sources(run)
    if run.wrote or not ProductScore.objects.filter(arena=arena).exists():
        arena_mark_stale(arena_id=arena.pk)
    # a persona's label shows on every arena that asks for it, and its slug keys their scores
    others = Story.all_objects.filter(persona__in=run.relabelled).exclude(arena=arena)
    for other in set(others.values_list("arena_id", flat=True)):
        arena_mark_stale(arena_id=other)
    return run


def _products(run: ImportRun) -> None:
    ov = run.record.overview
    values = {n: {"name": n, "page_name": n, **run.record.products[n]} for n in ov.products}
    rows = Product.all_objects.filter(arena=run.arena)  # (by the name the pages gave them)
    existing = {(p.page_name or p.name): p for p in rows}
    # a product whose name changed but whose slug did not is the same product, renamed
    by_slug = {p.slug: key for key, p in existing.items() if key not in ov.products}
    for name in ov.products:
        renamed = by_slug.get(values[name]["slug"])
        if name not in existing and renamed is not None:
            existing[name] = existing.pop(renamed)
    check = product_check(ov.path, list(rows))
    run.products.update(
        _write_rows(run, "product", rows, values, existing, check, arena=run.arena)[0]
    )


def _stories(run: ImportRun) -> None:
    record, ov = run.record, run.record.overview
    rows = Story.all_objects.filter(arena=run.arena)  # (by the text the pages gave them)
    existing = {(s.page_text or s.text): s for s in rows}
    by_text = {s.text: s for s in rows}
    listed = {}
    for ms in ov.stories:
        weight, story = record.weights.get(ms.text), existing.get(ms.text)
        if (holder := by_text.get(ms.text)) is not None and holder is not story:
            # (the current text of another story, reworded or retired)
            what = "a retired story" if holder.retired_at else "another story"
            if holder.page_text:
                what += f", which the pages call {short(holder.page_text, 60)}"
            raise ImportRefused(
                f"{ov.path}: the story {short(ms.text, 60)} is the text of {what}; "
                "reword one of them (nothing was imported)"
            )
        listed[ms.text] = values = {
            "text": ms.text,
            "page_text": ms.text,
            "category": run.categories[ms.category],
            "subgroup": run.subgroups.get((ms.category, ms.group)) if ms.group else None,
            "persona": run.personas[ms.persona],
            "weight": weight or settings.ARENA_DEFAULT_STORY_WEIGHT,
            "weight_published": weight is not None,
        }
        if weight is None and story is not None and story.weight_published:
            # pages that give no weight (an overview page alone) leave a known weight alone
            values["weight"], values["weight_published"] = story.weight, True
        elif weight is None:
            run.default_weights.append(ms.text)
        # an admin's weight, kept (or the same), keeps whether it is published
        if story is not None and story.edited_since_import:
            if values["weight"] == story.weight or not run.overwrite:
                values["weight_published"] = story.weight_published
    run.stories.update(_write_rows(run, "story", rows, listed, existing, arena=run.arena)[0])


def _write_rows(
    run: ImportRun,
    kind: str,
    rows: QuerySet,
    listed: dict[str, dict[str, Any]],
    existing: dict[str, Any] | None = None,
    check: Callable[[Any, dict[str, Any]], None] = lambda row, values: None,
    **parent: Any,
) -> tuple[dict[str, Any], list[Any]]:
    """Write the ``listed`` rows in page order; return them by name, and the rows no longer listed
    (a story or product retired). Rows are found by ``existing`` else by name (``named_rows``)."""
    editable = kind in ("story", "product")
    every = list(rows)  # (the rows ``existing`` holds: a QuerySet keeps what it fetched)
    if existing is None:
        existing = named_rows(every, listed, run.record.overview.path, kind)
    rows.update(position=F("position") + _OFFSET)
    for row in every:
        row.position += _OFFSET
    written: dict[str, Any] = {}
    for pos, (name, values) in enumerate(listed.items()):
        row = existing.get(name)
        if row is None:
            check(None, values)
            named = {} if editable else {"page_name": name}
            written[name] = rows.create(**parent, **{"position": pos, **values}, **named)
            run.count(kind, "added")
            continue
        label = f"the story “{name}”" if kind == "story" else f"the {kind} {name!r}"
        keep_edited(run, row, values, kind, label, plain=editable)
        if editable and row.retired_at is not None:
            if row.edited_since_import and not run.overwrite:
                run.kept.append(
                    f"kept {label} retired ({day_text(row.edited_at)}; the pages list it)"
                )
                run.count(kind, "kept")
            else:
                sync_row(row, {"retired_at": None})
                run.listed(kind, "restored", name)
        check(row, values)
        was = row.position - _OFFSET
        changed = sync_row(row, values)
        sync_row(row, {"position": pos}, bump=pos != was and not changed)
        if changed or pos != was:
            run.count(kind, "changed")
        if not editable:
            sync_row(row, {"page_name": name}, bump=False)
        written[name] = row
    kept = {row.pk for row in written.values()}
    unlisted = [row for row in every if row.pk not in kept]
    for row in unlisted:
        if editable and row.retired_at is None:
            sync_row(row, {"retired_at": timezone.now()})
            run.listed(kind, "retired", str(row))
    _place_after(unlisted, len(written))
    return written, unlisted


def _categories(run: ImportRun) -> None:
    ov, arena = run.record.overview, run.arena
    blurbs = {c.name: {"name": c.name, "blurb": c.blurb} for c in ov.categories}
    rows = Category.objects.filter(arena=arena)
    cats, gone = _write_rows(run, "category", rows, blurbs, arena=arena)
    run.categories.update(cats)
    run.removed_categories.extend(gone)
    for rec in ov.categories:
        cat = cats[rec.name]
        names = {g: {"name": g} for g in rec.groups if g is not None}
        rows = cat.subgroups.all()
        groups, gone_groups = _write_rows(run, "sub-group", rows, names, category=cat)
        run.subgroups.update({(rec.name, name): grp for name, grp in groups.items()})
        run.gone_groups.extend(gone_groups)


def _place_after(rows: Any, start: int) -> None:
    """Rows the pages no longer list go after the listed ones, in their old order."""
    for pos, row in enumerate(sorted(rows, key=lambda r: r.position), start=start):
        sync_row(row, {"position": pos}, bump=False)


def _personas(run: ImportRun) -> None:
    """Personas are global: the slug from the matrix, the label from the head-to-head pages."""
    labels = run.record.persona_labels
    for slug_ in dict.fromkeys(s.persona for s in run.record.overview.stories):
        label = labels.get(slug_, slug_.replace("-", " "))
        # by the slug the pages gave it (an admin may have changed it since), else by its slug
        by_page = Persona.objects.filter(page_slug=slug_).first()
        persona = by_page or Persona.objects.filter(slug=slug_).first()
        if persona is None:
            persona = Persona.objects.create(slug=slug_, page_slug=slug_, label=label)
            run.count("persona", "added")
        else:
            values = {"slug": slug_} | ({"label": label} if slug_ in labels else {})
            keep_edited(run, persona, values, "persona", f"the persona {slug_!r}")
            if sync_row(persona, values):
                run.count("persona", "changed")
                run.relabelled.append(persona.pk)
            sync_row(persona, {"page_slug": slug_}, bump=False)
        run.personas[slug_] = persona


def _prune_structure(run: ImportRun) -> None:
    """Categories and sub-groups the pages no longer list go, unless a retired story uses them."""
    used = list(Story.all_objects.filter(arena=run.arena).values_list("category_id", "subgroup_id"))
    _remove(run, "sub-group", run.gone_groups, {g for _, g in used})
    kept = _remove(run, "category", run.removed_categories, {c for c, _ in used})
    _place_after(kept, len(run.categories))


def _remove(run: ImportRun, kind: str, rows: list, used: Container[int] = ()) -> list:
    """Unlisted rows go but those in use or kept (added or edited in the admin); the kept ones."""
    kept = [row for row in rows if row.pk in used or keep_added(run, row, kind)]
    for row in rows:
        if row not in kept:
            run.listed(kind, "removed", row.name)
            row.delete()
    return kept


def _adjacent(run: ImportRun) -> None:
    listed = {a["name"]: dict(a) for a in run.record.overview.adjacent}
    rows = AdjacentArena.objects.filter(arena=run.arena)
    gone = _write_rows(run, "adjacent arena", rows, listed, arena=run.arena)[1]
    _remove(run, "adjacent arena", gone)


def _sources(run: ImportRun) -> None:
    """The arena's source list as a file states it (pages state none: left alone)."""
    if run.record.sources is None:
        return
    existing = {s.key: s for s in Source.objects.filter(arena=run.arena)}
    for values in run.record.sources:
        row = existing.pop(values["key"], None)
        if row is None:
            Source.objects.create(arena=run.arena, **values)
            run.count("source", "added")
        elif sync_row(row, values):
            run.count("source", "changed")
    for row in existing.values():
        run.listed("source", "removed", row.key)
        row.delete()
