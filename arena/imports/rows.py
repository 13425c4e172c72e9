"""The import's steps for the arena's rows but its cells: categories, sub-groups, personas,
products and stories (those listed are active, the others retired), adjacent arenas, sources."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db.models import F

from arena.imports.run import (
    ImportRun,
    ProductClashes,
    day_text,
    keep_added,
    keep_edited,
    named_rows,
    place,
    place_after,
    retire_gone,
    sync_row,
)
from arena.models import AdjacentArena, Category, Persona, Source, SubGroup
from products.models import Product
from stories.models import Story


def _relisted(
    run: ImportRun, row: Story | Product, values: dict[str, Any], label: str, name: str
) -> int:
    """A listed row the arena holds: shifted out of the way (returns where it stood), an admin's
    edits kept, back if retired (unless an admin retired it since the last import)."""
    kind = "story" if isinstance(row, Story) else "product"
    was = row.position
    row.position += run.offset
    keep_edited(run, row, values, kind, label, plain=True)
    if row.retired_at is None:
        return was
    if row.edited_since_import and not run.overwrite:
        run.report.kept.append(
            f"kept {label} retired ({day_text(row.edited_at)}; the pages list it)"
        )
        run.report.count(kind, "kept")
    else:
        sync_row(row, {"retired_at": None})
        run.report.listed(kind, "restored", name)
    return was


def import_products(run: ImportRun) -> None:
    ov = run.record.overview
    values = {n: {"name": n, "page_name": n, **run.record.products[n]} for n in ov.products}
    # found by the name the pages gave it (an admin may have renamed it since)
    rows = list(Product.all_objects.filter(arena=run.arena))
    existing = {(p.page_name or p.name): p for p in rows}
    # a product whose name changed but whose slug did not is the same product, renamed
    by_slug = {p.slug: key for key, p in existing.items() if key not in ov.products}
    for name in ov.products:
        renamed = by_slug.get(values[name]["slug"])
        if name not in existing and renamed is not None:
            existing[name] = existing.pop(renamed)
    clashes = ProductClashes(ov.path, rows)
    run.products.update(_write_listed(run, Product, values, existing, clashes.check))


def import_stories(run: ImportRun) -> None:
    record, ov, report = run.record, run.record.overview, run.report
    # found by the text the pages gave it (an admin may have reworded it since)
    existing = {(s.page_text or s.text): s for s in Story.all_objects.filter(arena=run.arena)}
    listed = {}
    for ms in ov.stories:
        weight = record.weights.get(ms.text)
        listed[ms.text] = values = {
            "text": ms.text,
            "page_text": ms.text,
            "category": run.categories[ms.category],
            "subgroup": run.subgroups.get((ms.category, ms.group)) if ms.group else None,
            "persona": run.personas[ms.persona],
            "weight": weight or settings.ARENA_DEFAULT_STORY_WEIGHT,
            "weight_published": weight is not None,
        }
        story = existing.get(ms.text)
        if weight is None and story is not None and story.weight_published:
            # pages that give no weight (an overview page alone) leave a known weight alone
            values["weight"], values["weight_published"] = story.weight, True
        elif weight is None:
            report.default_weight_stories.append(ms.text)

    def edited_weight(story: Story | None, values: dict[str, Any]) -> None:
        if story is not None and story.edited_since_import and values["weight"] == story.weight:
            values["weight_published"] = story.weight_published

    run.stories.update(_write_listed(run, Story, listed, existing, edited_weight))


def _write_listed[Row: (Product, Story)](
    run: ImportRun,
    model: type[Row],
    listed: dict[str, dict[str, Any]],
    existing: dict[str, Row],
    check: Callable[[Any, dict[str, Any]], None],
) -> dict[str, Row]:
    """The listed rows in page order, by name (``check``: before a row is written, with what an
    admin edited kept); the others retired."""
    kind = "story" if model is Story else "product"
    model.all_objects.filter(arena=run.arena).update(position=F("position") + run.offset)
    written: dict[str, Row] = {}
    for pos, (name, values) in enumerate(listed.items()):
        row = existing.pop(name, None)
        if row is None:
            check(None, values)
            written[name] = model.all_objects.create(arena=run.arena, position=pos, **values)
            run.report.count(kind, "added")
            continue
        label = f"the story “{name}”" if kind == "story" else f"the product {name!r}"
        was = _relisted(run, row, values, label, name)
        check(row, values)
        if place(row, values, pos, was):
            run.report.count(kind, "changed")
        written[name] = row
    retire_gone(existing.values(), kind, run.offset, len(written), run.report)
    return written


def import_categories(run: ImportRun) -> None:
    """Categories and sub-groups in page order."""
    ov, arena = run.record.overview, run.arena
    rows = list(Category.objects.filter(arena=arena))
    blurbs = {c.name: c.blurb for c in ov.categories}
    cats, gone = _named(run, Category, rows, list(blurbs), {"arena": arena}, blurbs)
    run.categories.update(cats)
    run.removed_categories.extend(gone)
    for rec in ov.categories:
        cat = cats[rec.name]
        names = [g for g in rec.groups if g is not None]
        group_rows = list(SubGroup.objects.filter(category=cat))
        groups, gone_groups = _named(run, SubGroup, group_rows, names, {"category": cat})
        run.subgroups.update({(rec.name, name): grp for name, grp in groups.items()})
        run.gone_groups.extend(gone_groups)
        place_after(gone_groups, len(names))


def _named[Named: (Category, SubGroup)](
    run: ImportRun,
    model: type[Named],
    rows: list[Named],
    names: list[str],
    parent: dict,
    blurbs: dict[str, str] | None = None,
) -> tuple[dict[str, Named], list[Named]]:
    """The listed rows by name, written in page order, and the rows no longer listed."""
    kind = "category" if model is Category else "sub-group"
    found = named_rows(rows, names, run.record.overview.path, kind)
    gone = {r.pk: r for r in rows}
    model.objects.filter(pk__in=gone).update(position=F("position") + run.offset)
    for pos, name in enumerate(names):
        values = {"name": name} | ({"blurb": blurbs[name]} if blurbs is not None else {})
        row = found.get(name)
        if row is None:
            found[name] = model.objects.create(**parent, **values, page_name=name, position=pos)
            run.report.count(kind, "added")
            continue
        del gone[row.pk]
        was = row.position
        row.position += run.offset  # mirror the bulk shift
        keep_edited(run, row, values, kind, f"the {kind} {name!r}")
        if place(row, values, pos, was):
            run.report.count(kind, "changed")
        sync_row(row, {"page_name": name}, bump=False)
    for row in gone.values():
        row.position += run.offset
    return found, list(gone.values())


def import_personas(run: ImportRun) -> None:
    """Personas are global: the slug from the matrix, the label from the head-to-head pages."""
    record, ov, report = run.record, run.record.overview, run.report
    personas = run.personas
    for slug_ in dict.fromkeys(s.persona for s in ov.stories):
        label = record.persona_labels.get(slug_, slug_.replace("-", " "))
        # by the slug the pages gave it (an admin may have changed it since), else by its slug
        persona = (
            Persona.objects.filter(page_slug=slug_).first()
            or Persona.objects.filter(slug=slug_).first()
        )
        if persona is None:
            persona = Persona.objects.create(slug=slug_, page_slug=slug_, label=label)
            report.count("persona", "added")
        else:
            values = {"slug": slug_}
            if slug_ in record.persona_labels:
                values["label"] = label
            keep_edited(run, persona, values, "persona", f"the persona {slug_!r}")
            if sync_row(persona, values):
                report.count("persona", "changed")
                run.relabelled.append(persona.pk)
            sync_row(persona, {"page_slug": slug_}, bump=False)
        personas[slug_] = persona


def prune_structure(run: ImportRun) -> None:
    """Categories and sub-groups the pages no longer list go, unless a retired story uses them."""
    arena, report = run.arena, run.report
    cats, gone_groups, removed_cats = run.categories, run.gone_groups, run.removed_categories
    used = list(Story.all_objects.filter(arena=arena).values_list("category_id", "subgroup_id"))
    used_cats, used_groups = {c for c, _ in used}, {g for _, g in used}
    for g in gone_groups:
        if g.pk not in used_groups and not keep_added(
            run, g, "sub-group", f"the sub-group {g.name!r}"
        ):
            report.listed("sub-group", "removed", g.name)
            g.delete()
    kept_cats = []
    for c in removed_cats:
        if c.pk in used_cats or keep_added(run, c, "category", f"the category {c.name!r}"):
            kept_cats.append(c)
        else:
            report.listed("category", "removed", c.name)
            c.delete()
    place_after(kept_cats, len(cats))


def import_adjacent(run: ImportRun) -> None:
    """The adjacent arenas, as the pages list them."""
    ov, arena, report = run.record.overview, run.arena, run.report
    rows = list(AdjacentArena.objects.filter(arena=arena))
    found = named_rows(rows, [a.name for a in ov.adjacent], ov.path, "adjacent arena")
    existing_adj = {a.pk: a for a in rows}
    for pos, adj in enumerate(ov.adjacent):
        values = {
            "product_count": adj.product_count,
            "leader": adj.leader,
            "shares": adj.shares or "",
            "position": pos,
        }
        obj = found.get(adj.name)
        if obj is None:
            AdjacentArena.objects.create(arena=arena, name=adj.name, page_name=adj.name, **values)
            report.count("adjacent arena", "added")
            continue
        del existing_adj[obj.pk]
        values["name"] = adj.name  # (an admin's order of them stays too: no place is unique)
        keep_edited(run, obj, values, "adjacent arena", f"the adjacent arena {adj.name!r}")
        if sync_row(obj, values):
            report.count("adjacent arena", "changed")
        sync_row(obj, {"page_name": adj.name}, bump=False)
    for obj in existing_adj.values():
        if keep_added(run, obj, "adjacent arena", f"the adjacent arena {obj.name!r}"):
            continue
        report.listed("adjacent arena", "removed", obj.name)
        obj.delete()


def import_sources(run: ImportRun) -> None:
    """The arena's source list as a file states it."""
    stated, arena, report = run.record.sources, run.arena, run.report
    if stated is None:
        return
    existing = {s.key: s for s in Source.objects.filter(arena=arena)}
    for values in stated:
        row = existing.pop(values["key"], None)
        if row is None:
            Source.objects.create(arena=arena, **values)
            report.count("source", "added")
        elif sync_row(row, values):
            report.count("source", "changed")
    for row in existing.values():
        report.listed("source", "removed", row.key)
        row.delete()
