"""The import of an arena's categories, sub-groups, personas, adjacent arenas and sources."""

from __future__ import annotations

from django.db.models import F

from arena.imports.run import (
    ImportRun,
    keep_added,
    keep_edited,
    named_rows,
    place,
    place_after,
    sync_row,
)
from arena.models import AdjacentArena, Category, Persona, Source, SubGroup
from stories.models import Story


def import_categories(run: ImportRun) -> None:
    """Categories and sub-groups in page order; the ones the pages dropped wait for
    ``prune_structure`` (a retired story may still use them)."""
    ov, arena, offset, report = run.record.overview, run.arena, run.offset, run.report
    rows = list(Category.objects.filter(arena=arena))
    existing_cats = named_rows(rows, [c.name for c in ov.categories], ov.path, "category")
    listed = {c.pk for c in existing_cats.values()}
    removed_cats = run.removed_categories
    removed_cats.extend(c for c in rows if c.pk not in listed)
    Category.objects.filter(arena=arena).update(position=F("position") + offset)
    for c in removed_cats:
        c.position += offset
    cats, subgroups, gone_groups = run.categories, run.subgroups, run.gone_groups
    for pos, rec in enumerate(ov.categories):
        cat = existing_cats.get(rec.name)
        if cat is None:
            cat = Category.objects.create(
                arena=arena, name=rec.name, page_name=rec.name, blurb=rec.blurb, position=pos
            )
            report.count("category", "added")
        else:
            was = cat.position
            cat.position += offset  # mirror the bulk shift
            values = {"name": rec.name, "blurb": rec.blurb}
            keep_edited(run, cat, values, "category", f"the category {rec.name!r}")
            if place(cat, values, pos, was):
                report.count("category", "changed")
            sync_row(cat, {"page_name": rec.name}, bump=False)
        cats[rec.name] = cat
        names = [g for g in rec.groups if g is not None]
        group_rows = list(SubGroup.objects.filter(category=cat))
        found = named_rows(group_rows, names, ov.path, "sub-group")
        existing_groups = {g.pk: g for g in group_rows}
        SubGroup.objects.filter(category=cat).update(position=F("position") + offset)
        for gpos, gname in enumerate(names):
            grp = found.get(gname)
            if grp is None:
                grp = SubGroup.objects.create(
                    category=cat, name=gname, page_name=gname, position=gpos
                )
                report.count("sub-group", "added")
            else:
                del existing_groups[grp.pk]
                was = grp.position
                grp.position += offset
                values = {"name": gname}
                keep_edited(run, grp, values, "sub-group", f"the sub-group {gname!r}")
                if place(grp, values, gpos, was):
                    report.count("sub-group", "changed")
                sync_row(grp, {"page_name": gname}, bump=False)
            subgroups[(rec.name, gname)] = grp
        for grp in existing_groups.values():
            grp.position += offset
        gone_groups.extend(existing_groups.values())
        place_after(existing_groups.values(), len(names))


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
    used_cats = set(Story.all_objects.filter(arena=arena).values_list("category_id", flat=True))
    used_groups = set(
        Story.all_objects.filter(arena=arena, subgroup__isnull=False).values_list(
            "subgroup_id", flat=True
        )
    )
    for g in gone_groups:
        if g.pk not in used_groups and not keep_added(
            run, g, "sub-group", f"the sub-group {g.name!r}"
        ):
            report.removed.append(f"sub-group {g.name!r}")
            report.count("sub-group", "removed")
            g.delete()
    kept_cats = []
    for c in removed_cats:
        if c.pk in used_cats or keep_added(run, c, "category", f"the category {c.name!r}"):
            kept_cats.append(c)
        else:
            report.removed.append(f"category {c.name!r}")
            report.count("category", "removed")
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
        report.removed.append(f"adjacent arena {obj.name!r}")
        report.count("adjacent arena", "removed")
        obj.delete()


def import_sources(run: ImportRun) -> None:
    """The arena's source list as a file states it: entries added, changed and removed to match
    (a reference list, kept by no one else: no history). Pages state none and leave it alone."""
    stated, arena, report = run.record.sources, run.arena, run.report
    if stated is None:
        return
    existing = {s.key: s for s in Source.objects.filter(arena=arena)}
    for rec in stated:
        values = {"title": rec.title, "url": rec.url, "accessed": rec.accessed}
        row = existing.pop(rec.key, None)
        if row is None:
            Source.objects.create(arena=arena, key=rec.key, **values)
            report.count("source", "added")
        elif sync_row(row, values):
            report.count("source", "changed")
    for row in existing.values():
        report.removed.append(f"source {row.key!r}")
        report.count("source", "removed")
        row.delete()
