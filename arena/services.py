"""Writes of the arena app: the page import, and renames of categories and personas.

Every change that can move a score calls ``arena.recompute.arena_mark_stale`` inside its transaction.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Model, Q
from django.utils import timezone

from arena.import_checks import ImportRefused as ImportRefused  # (raised here and by the checks)
from arena.import_checks import ProductClashes, import_arena_find
from arena.importer import ArenaRecord
from arena.models import (
    AdjacentArena,
    Arena,
    Category,
    Persona,
    ProductScore,
    SubGroup,
)
from arena.recompute import arena_content_changed, arena_mark_stale
from arena.text import arena_slugify, parse_figure
from products.models import Product
from stories.models import Cell, CellChange, Evidence, Story
from stories.services import cell_set_value
from stories.values import CellValue

log = logging.getLogger(__name__)


@transaction.atomic
def category_save(*, category: Category, changed: Iterable[str]) -> Category:
    """Save a category added or edited in the admin. Scores are stored per category name, so a new
    category or a new name recomputes its arena. A category stays in its arena (its stories do)."""
    if category.pk is not None:
        arena_id = Category.objects.values_list("arena_id", flat=True).get(pk=category.pk)
        if arena_id != category.arena_id:
            raise ValidationError({"arena": "A category stays in its arena; add one to the other."})
    adding = category.pk is None
    category.save()
    if adding or "name" in changed:
        arena_mark_stale(arena_id=category.arena_id)
    else:
        arena_content_changed(arena_id=category.arena_id)
    return category


@transaction.atomic
def persona_save(*, persona: Persona, changed: Iterable[str]) -> Persona:
    """Save a persona edited in the admin. Scores are stored per persona slug, so a new slug
    recomputes every arena that uses it."""
    persona.save()
    for arena_id in set(
        Story.all_objects.filter(persona=persona).values_list("arena_id", flat=True)
    ):
        if "slug" in changed:
            arena_mark_stale(arena_id=arena_id)
        else:  # its label shows on the pages
            arena_content_changed(arena_id=arena_id)
    return persona


# Arena fields an editor may change; the bookkeeping (scores, versions) belongs to the recompute.
ARENA_EDITABLE_FIELDS = ("slug", "name", "description", "updated", "evidence_as_of")


@transaction.atomic
def arena_save(*, arena: Arena, changed: Iterable[str]) -> Arena:
    """Save an arena added or edited in the admin. Only the fields the editor changed are written,
    never the score bookkeeping and content version a recompute may be writing meanwhile; the
    content version moves on."""
    if arena.pk is None:
        arena.save()
    else:
        fields = [f for f in changed if f in ARENA_EDITABLE_FIELDS]
        if fields:
            arena.save(update_fields=fields)
    arena_content_changed(arena_id=arena.pk)
    return arena


@transaction.atomic
def arena_part_saved(*, arena_id: int) -> None:
    """A part of an arena's pages that has no rules of its own (an adjacent arena, a sub-group)
    was saved or deleted in the admin, in the surrounding transaction: its pages change."""
    arena_content_changed(arena_id=arena_id)


# ---------------------------------------------------------------- import


@dataclass
class ImportReport:
    arena: Arena | None = None
    created: bool = False
    changed: bool = False
    stories: int = 0
    cells: int = 0
    detailed_cells: int = 0
    default_weight_stories: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)
    restored: list[str] = field(default_factory=list)
    # cells whose moderated value the import kept (or, told to, overwrote), one line each
    kept: list[str] = field(default_factory=list)
    overwritten: list[str] = field(default_factory=list)


def _sync(obj: Model, values: dict) -> bool:
    """Set changed fields on obj; return whether anything changed (saved by the caller)."""
    changed = [k for k, v in values.items() if getattr(obj, k) != v]
    for k in changed:
        setattr(obj, k, values[k])
    if changed:
        obj.save(update_fields=changed)
    return bool(changed)


MODERATED = (CellChange.Kind.FLAG, CellChange.Kind.ADMIN)


def _moderated_changes(arena: Arena) -> dict[int, CellChange]:
    """The newest moderator or admin change of each cell of the arena that has one (one query)."""
    newest: dict[int, CellChange] = {}
    for change in (
        CellChange.objects.filter(cell__story__arena=arena, kind__in=MODERATED)
        .select_related("changed_by")
        .order_by("changed_at", "pk")
    ):
        newest[change.cell_id] = change
    return newest


def _place_after(rows: Iterable[Category | SubGroup | Story | Product], start: int) -> None:
    """Give rows that the pages no longer list (retired, or kept for their history) the positions
    after the listed ones, in their old order."""
    for pos, row in enumerate(sorted(rows, key=lambda r: r.position), start=start):
        _sync(row, {"position": pos})


# what an admin edit of a story or a product changes, and a re-import keeps when the edit is as new
# as the pages or newer
STORY_EDIT_FIELDS = ("text", "category", "subgroup", "persona", "weight")
PRODUCT_EDIT_FIELDS = (
    "name",
    "slug",
    "tier",
    "stars",
    "stars_growth",
    "npm_weekly",
    "pypi_weekly",
    "popularity_as_of",
)


def _story_key(story: Story) -> tuple:
    return (story.text, story.category_id, story.subgroup_id, story.persona_id, story.weight)


def _keep_edits(
    row: Story | Product,
    values: dict,
    fields: Iterable[str],
    what: str,
    report: ImportReport,
    *,
    overwrite: bool,
) -> None:
    """Keep the row's edited values over the page's (in ``values``), or with ``overwrite`` let the
    page's win; one report line each."""
    for name in fields:
        current = getattr(row, name)
        if current != values[name]:
            line = (
                f"edited {name} {current} of {what} ({row.edited_at:%Y-%m-%d}; "
                f"page says {values[name]})"
            )
            if overwrite:
                report.overwritten.append(f"overwrote {line}")
            else:
                report.kept.append(f"kept {line}")
                values[name] = current


def _edited_since(edited_at: datetime | None, page_date: date | None) -> bool:
    """Whether an admin edit is as new as the pages (a re-import keeps it) or newer."""
    return edited_at is not None and (page_date is None or edited_at.date() >= page_date)


def _retire_gone(
    rows: Iterable[Story | Product], what: str, offset: int, listed: int, report: ImportReport
) -> bool:
    """Retire the rows the pages no longer list (never delete them) and place them after the
    listed ones; ``offset`` mirrors the bulk shift of positions. Returns whether any was retired."""
    rows = list(rows)
    now = timezone.now()
    retired = False
    for row in rows:
        row.position += offset
        if row.retired_at is None:
            _sync(row, {"retired_at": now})
            report.retired.append(f"{what} {str(row)!r}")
            retired = True
    _place_after(rows, listed)
    return retired


@dataclass
class _ImportRun:
    """One import's state, passed from step to step."""

    record: ArenaRecord
    arena: Arena
    report: ImportReport
    page_date: date | None
    overwrite: bool
    changed: bool = False
    # positions are shifted out of the way first so the unique (arena, position) constraints hold
    # while reordering
    offset: int = 10_000_000
    categories: dict[str, Category] = field(default_factory=dict)
    subgroups: dict[tuple[str, str], SubGroup] = field(default_factory=dict)
    gone_groups: list[SubGroup] = field(default_factory=list)
    removed_categories: list[Category] = field(default_factory=list)
    personas: dict[str, Persona] = field(default_factory=dict)
    products: dict[str, Product] = field(default_factory=dict)
    stories: dict[str, Story] = field(default_factory=dict)


def _import_categories(run: _ImportRun) -> None:
    """Categories and sub-groups in page order; the ones the pages dropped wait for
    ``_prune_structure`` (a retired story may still use them)."""
    ov, arena, offset = run.record.overview, run.arena, run.offset
    existing_cats = {c.name: c for c in Category.objects.filter(arena=arena)}
    keep_cats = {c.name for c in ov.categories}
    removed_cats = run.removed_categories
    removed_cats.extend(c for name, c in existing_cats.items() if name not in keep_cats)
    Category.objects.filter(arena=arena).update(position=F("position") + offset)
    for c in removed_cats:
        c.position += offset
    cats, subgroups, gone_groups = run.categories, run.subgroups, run.gone_groups
    for pos, rec in enumerate(ov.categories):
        cat = existing_cats.get(rec.name)
        if cat is None:
            cat = Category.objects.create(arena=arena, name=rec.name, blurb=rec.blurb, position=pos)
            run.changed = True
        else:
            cat.position += offset  # mirror the bulk shift
            _sync(cat, {"blurb": rec.blurb, "position": pos})
        cats[rec.name] = cat
        existing_groups = {g.name: g for g in SubGroup.objects.filter(category=cat)}
        SubGroup.objects.filter(category=cat).update(position=F("position") + offset)
        names = [g for g in rec.groups if g is not None]
        for gpos, gname in enumerate(names):
            grp = existing_groups.pop(gname, None)
            if grp is None:
                grp = SubGroup.objects.create(category=cat, name=gname, position=gpos)
                run.changed = True
            else:
                grp.position += offset
                _sync(grp, {"position": gpos})
            subgroups[(rec.name, gname)] = grp
        for grp in existing_groups.values():
            grp.position += offset
        gone_groups.extend(existing_groups.values())
        _place_after(existing_groups.values(), len(names))


def _import_personas(run: _ImportRun) -> None:
    """Personas are global: the slug from the matrix, the label from the head-to-head pages."""
    record, ov = run.record, run.record.overview
    personas = run.personas
    for slug_ in dict.fromkeys(s.persona for s in ov.stories):
        label = record.persona_labels.get(slug_, slug_.replace("-", " "))
        persona, created = Persona.objects.get_or_create(slug=slug_, defaults={"label": label})
        run.changed |= created
        if slug_ in record.persona_labels:
            _sync(persona, {"label": label})
        personas[slug_] = persona


def _import_products(run: _ImportRun) -> None:
    """Every product the pages list is active; the others are retired, never deleted."""
    ov, arena, report = run.record.overview, run.arena, run.report
    offset, page_date = run.offset, run.page_date
    overwrite_moderated = run.overwrite
    values_of = _product_values(run)
    # found by the name the pages gave it (an admin may have renamed it since)
    existing_products = {
        (p.page_name or p.name): p for p in Product.all_objects.filter(arena=arena)
    }
    # a product whose name changed but whose slug did not is the same product, renamed
    by_slug = {p.slug: key for key, p in existing_products.items() if key not in ov.products}
    for name in ov.products:
        renamed = by_slug.get(values_of[name]["slug"])
        if name not in existing_products and renamed is not None:
            existing_products[name] = existing_products.pop(renamed)
    clashes = ProductClashes(ov.path, Product.all_objects.filter(arena=arena))
    Product.all_objects.filter(arena=arena).update(position=F("position") + offset)
    products = run.products
    for pos, name in enumerate(ov.products):
        values = {**values_of[name], "position": pos}
        product = existing_products.pop(name, None)
        if product is None:
            clashes.check(None, values)
            product = Product.all_objects.create(arena=arena, **values)
            run.changed = True
            products[name] = product
            continue
        product.position += offset
        if _edited_since(product.edited_at, page_date):
            _keep_edits(
                product,
                values,
                PRODUCT_EDIT_FIELDS,
                f"the product {name!r}",
                report,
                overwrite=overwrite_moderated,
            )
        edited = _edited_since(product.edited_at, page_date) and not overwrite_moderated
        if product.retired_at is not None and edited:
            report.kept.append(
                f"kept the product {name!r} retired ({product.edited_at:%Y-%m-%d}; "
                "the pages list it)"
            )
        elif product.retired_at is not None:
            values["retired_at"] = None
            report.restored.append(f"product {name!r}")
            run.changed = True
        clashes.check(product, values)
        run.changed |= _sync(product, {k: v for k, v in values.items() if k != "position"})
        _sync(product, {"position": values["position"]})
        products[name] = product
    run.changed |= _retire_gone(
        existing_products.values(), "product", offset, len(products), report
    )


def _product_values(run: _ImportRun) -> dict[str, dict]:
    """Each product's stored values but its position, by name: as an arena file states them, or
    from the pages' leaderboard (figures as shown, popularity as of the evidence date)."""
    ov, stated = run.record.overview, run.record.products
    if stated is not None:
        return {
            name: {"name": name, "page_name": name, **dataclasses.asdict(stated[name])}
            for name in ov.products
        }
    by_name = {lr.product: lr for lr in ov.leaderboard}
    values = {}
    for name in ov.products:
        lr = by_name.get(name)
        values[name] = {
            "name": name,
            "page_name": name,
            "slug": arena_slugify(name),
            "tier": lr.tier if lr else "",
            "stars": parse_figure(lr.stars) if lr else None,
            "stars_growth": parse_figure(lr.stars_growth) if lr else None,
            "npm_weekly": parse_figure(lr.npm_weekly) if lr else None,
            "pypi_weekly": parse_figure(lr.pypi_weekly) if lr else None,
            "popularity_as_of": ov.evidence_as_of if lr else None,
        }
    return values


def _import_stories(run: _ImportRun) -> None:
    """Every story the pages list is active; the others are retired, never deleted."""
    record, ov, arena, report = run.record, run.record.overview, run.arena, run.report
    offset, page_date = run.offset, run.page_date
    overwrite_moderated = run.overwrite
    cats, subgroups, personas = run.categories, run.subgroups, run.personas
    default_weight = settings.ARENA_DEFAULT_STORY_WEIGHT
    # found by the text the pages gave it (an admin may have reworded it since)
    existing_stories = {(s.page_text or s.text): s for s in Story.all_objects.filter(arena=arena)}
    Story.all_objects.filter(arena=arena).update(position=F("position") + offset)
    stories = run.stories
    for pos, ms in enumerate(ov.stories):
        weight = record.weights.get(ms.text)
        story = existing_stories.pop(ms.text, None)
        values = {
            "text": ms.text,
            "page_text": ms.text,
            "category": cats[ms.category],
            "subgroup": subgroups.get((ms.category, ms.group)) if ms.group else None,
            "persona": personas[ms.persona],
            "weight": weight or default_weight,
            "weight_published": weight is not None,
            "position": pos,
        }
        if weight is None and story is not None and story.weight_published:
            # pages that give no weight (an overview page alone) leave a known weight alone
            values["weight"], values["weight_published"] = story.weight, True
        elif weight is None:
            report.default_weight_stories.append(ms.text)
        if story is None:
            story = Story.all_objects.create(arena=arena, **values)
            run.changed = True
            stories[ms.text] = story
            continue
        story.position += offset
        if _edited_since(story.edited_at, page_date):
            _keep_edits(
                story,
                values,
                STORY_EDIT_FIELDS,
                f"the story “{ms.text}”",
                report,
                overwrite=overwrite_moderated,
            )
            if values["weight"] == story.weight:
                values["weight_published"] = story.weight_published
        edited = _edited_since(story.edited_at, page_date) and not overwrite_moderated
        before = _story_key(story)
        if story.retired_at is not None and edited:
            report.kept.append(
                f"kept the story “{ms.text}” retired ({story.edited_at:%Y-%m-%d}; the pages list it)"
            )
        elif story.retired_at is not None:
            values["retired_at"] = None
            report.restored.append(f"story {ms.text!r}")
            run.changed = True
        _sync(story, values)
        if before != _story_key(story):
            run.changed = True
            Story.all_objects.filter(pk=story.pk).update(version=F("version") + 1)
        stories[ms.text] = story
    run.changed |= _retire_gone(existing_stories.values(), "story", offset, len(stories), report)


def _import_cells(run: _ImportRun) -> None:
    """Cells and their evidence, keeping moderated values as new as the pages (see
    ``arena_import``)."""
    record, ov, arena, report = run.record, run.record.overview, run.arena, run.report
    page_date, overwrite_moderated = run.page_date, run.overwrite
    stories, products = run.stories, run.products
    existing_cells = {
        (c.story_id, c.product_id): c
        for c in Cell.objects.filter(story__arena=arena)
        .select_for_update()
        .prefetch_related("evidence")
    }
    moderated = _moderated_changes(arena) if existing_cells else {}
    new_cells: list[Cell] = []
    evidence_for: list[tuple[Cell, tuple]] = []
    # the pages' cells and quotes are checked as of their "Evidence as of" date
    # (stories/freshness.py): the cells the import leaves as moderated keep theirs
    checked_on = ov.evidence_as_of
    # an arena file states each cell's date and each quote's url and date (the pages do not)
    exact = record.exact
    redated: dict[date | None, list[int]] = {}
    kept_cells: list[int] = []
    evidence_kept: list[int] = []  # cells whose quotes the pages state again, as they are
    for ms in ov.stories:
        story = stories[ms.text]
        for pname, mark in ms.cells:
            product = products[pname]
            detail = record.details.get((ms.text, pname))
            rationale = detail.rationale if detail else ""
            evidence = detail.evidence if detail else ()
            cell = existing_cells.get((story.pk, product.pk))
            if cell is None:
                cell = Cell(
                    story=story,
                    product=product,
                    verdict=mark.verdict,
                    proof=mark.proof,
                    quality=mark.quality,
                    rationale=rationale,
                    detail_published=detail is not None and detail.published,
                    evidence_as_of=detail.evidence_as_of if exact and detail else checked_on,
                )
                new_cells.append(cell)
                evidence_for.append((cell, evidence))
                continue
            page = CellValue(mark.verdict, mark.proof, mark.quality)
            current = CellValue.of(cell)
            if current != page:
                kind, note = CellChange.Kind.IMPORT, f"Imported from {ov.path}"
                last = moderated.get(cell.pk)
                if last is not None and _edited_since(last.changed_at, page_date):
                    what = (
                        f"{last.get_kind_display()} value {current.label()} of {pname} on "
                        f"“{ms.text}” ({last.changed_at:%Y-%m-%d}; page says {page.label()})"
                    )
                    if not overwrite_moderated:
                        report.kept.append(f"kept {what}")
                        kept_cells.append(cell.pk)
                        continue  # the cell, its rationale and evidence stay as moderated
                    report.overwritten.append(f"overwrote {what}")
                    kind = CellChange.Kind.IMPORT_OVERRIDE
                    note = (
                        f"Imported from {ov.path} over the {last.get_kind_display()} value "
                        f"{current.label()} of {last.changed_at:%Y-%m-%d}"
                    )
                cell_set_value(
                    cell=cell,
                    value=page,
                    kind=kind,
                    note=note,
                    expected_version=cell.version,
                    mark_stale=False,
                )
                run.changed = True
            if detail is None and cell.detail_published:
                continue  # pages that do not detail this cell leave its published detail alone
            if rationale != cell.rationale and _edited_since(cell.detail_edited_at, page_date):
                what = (
                    f"edited rationale of {pname} on “{ms.text}” "
                    f"({cell.detail_edited_at:%Y-%m-%d}; the page's differs)"
                )
                if not overwrite_moderated:
                    report.kept.append(f"kept {what}")
                    rationale = cell.rationale
                else:
                    report.overwritten.append(f"overwrote {what}")
            fields = {
                "rationale": rationale,
                "detail_published": detail is not None and detail.published,
            }
            if rationale != cell.rationale or current != page:
                # the page's rationale beside the page's judgement: it predates no correction
                fields["rationale_predates"] = None
            if rationale != cell.rationale:
                fields["rationale_rewritten_at"] = None  # no longer the correction's words
            touched = _sync(cell, fields)
            if exact and detail is not None and cell.evidence_as_of != detail.evidence_as_of:
                redated.setdefault(detail.evidence_as_of, []).append(cell.pk)
            if _quotes(cell.evidence.all(), exact) != _quotes(evidence, exact):
                cell.evidence.all().delete()
                evidence_for.append((cell, evidence))
                touched = True
            elif detail is not None:
                evidence_kept.append(cell.pk)
            if touched:  # an admin form opened before the import is now stale
                Cell.objects.filter(pk=cell.pk).update(version=F("version") + 1)
    # a product or story that comes back (or is new) beside retired rows: every pair has a cell
    Cell.objects.bulk_create(new_cells)
    run.changed |= bool(new_cells)
    Evidence.objects.bulk_create(
        Evidence(
            cell=cell,
            position=i,
            source=e.source,
            quote=e.quote,
            url=e.url,
            checked_on=e.checked_on if exact else checked_on,
        )
        for cell, evidence in evidence_for
        for i, e in enumerate(evidence)
    )
    if exact:
        # each cell is checked on the day the file says (a statement a re-import can move back)
        for day, pks in redated.items():
            for start in range(0, len(pks), 2000):  # (SQLite's limit on a query's parameters)
                Cell.objects.filter(pk__in=pks[start : start + 2000]).update(evidence_as_of=day)
        if redated:
            arena_content_changed(arena_id=arena.pk)
    elif checked_on is not None and _date_cells(run, checked_on, kept_cells, evidence_kept):
        arena_content_changed(arena_id=arena.pk)


def _quotes(items: Iterable, exact: bool) -> tuple:
    """Evidence items as the import compares them: source and quote, with an arena file their url
    and date too."""
    if exact:
        return tuple((e.source, e.quote, e.url or "", e.checked_on) for e in items)
    return tuple((e.source, e.quote) for e in items)


def _date_cells(run: _ImportRun, day: date, kept: list[int], evidence_kept: list[int]) -> bool:
    """The pages state every verdict (and the quotes they detail) as of ``day``: the cells on
    them, but those kept as moderated, are checked then unless checked later (a date never moves
    back). Two statements; True when a date moved (what the pages show changed)."""
    older = Q(evidence_as_of__isnull=True) | Q(evidence_as_of__lt=day)
    cells = (
        Cell.objects.filter(
            story__in=[s.pk for s in run.stories.values()],
            product__in=[p.pk for p in run.products.values()],
        )
        .filter(older)
        .exclude(pk__in=kept)
        .update(evidence_as_of=day)
    )
    quotes = 0
    if evidence_kept:
        quotes = (
            Evidence.objects.filter(cell_id__in=evidence_kept)
            .filter(Q(checked_on__isnull=True) | Q(checked_on__lt=day))
            .update(checked_on=day)
        )
    return bool(cells or quotes)


def _prune_structure(run: _ImportRun) -> None:
    """Categories and sub-groups the pages no longer list go, unless a retired story
    still uses them."""
    arena, report = run.arena, run.report
    cats, gone_groups, removed_cats = run.categories, run.gone_groups, run.removed_categories
    used_cats = set(Story.all_objects.filter(arena=arena).values_list("category_id", flat=True))
    used_groups = set(
        Story.all_objects.filter(arena=arena, subgroup__isnull=False).values_list(
            "subgroup_id", flat=True
        )
    )
    for g in gone_groups:
        if g.pk not in used_groups:
            report.removed.append(f"sub-group {g.name!r}")
            g.delete()
    kept_cats = []
    for c in removed_cats:
        if c.pk in used_cats:
            kept_cats.append(c)
        else:
            report.removed.append(f"category {c.name!r}")
            c.delete()
    _place_after(kept_cats, len(cats))
    run.changed |= bool(report.removed)


def _import_adjacent(run: _ImportRun) -> None:
    """The adjacent arenas, as the pages list them."""
    ov, arena = run.record.overview, run.arena
    existing_adj = {a.name: a for a in AdjacentArena.objects.filter(arena=arena)}
    for pos, adj in enumerate(ov.adjacent):
        values = {
            "product_count": adj.product_count,
            "leader": adj.leader,
            "shares": adj.shares or "",
            "position": pos,
        }
        obj = existing_adj.pop(adj.name, None)
        if obj is None:
            AdjacentArena.objects.create(arena=arena, name=adj.name, **values)
        else:
            _sync(obj, values)
    for obj in existing_adj.values():
        obj.delete()


@transaction.atomic
def arena_import(*, record: ArenaRecord, overwrite_moderated: bool = False) -> ImportReport:
    """Build or update an arena from parsed pages, in one transaction. Twice = once: a re-import of
    the same pages writes nothing and leaves the stored scores alone.

    Moderation is respected: a cell whose current value came from an upheld flag or an admin edit
    made on or after the pages' date keeps it, and the report names each such conflict
    (``overwrite_moderated`` writes the page's value instead, recorded publicly as an import over
    a moderated value). Stories and products that vanish from the pages are retired (hidden from
    pages and scores), never deleted: their flags, decisions and history stay.
    """
    ov = record.overview
    report = ImportReport()
    slug = record.slug or arena_slugify(ov.name)
    # by slug, else by name (an admin may have changed the slug); a clash is refused
    arena = import_arena_find(record, slug=slug)
    report.created = arena is None
    if arena is None:
        arena = Arena.objects.create(slug=slug, name=ov.name)
    changed = report.created
    changed |= _sync(
        arena,
        {
            "name": ov.name,
            "description": ov.description,
            "updated": ov.updated,
            "evidence_as_of": ov.evidence_as_of,
        },
    )
    run = _ImportRun(
        record=record,
        arena=arena,
        report=report,
        page_date=ov.updated or ov.evidence_as_of,
        overwrite=overwrite_moderated,
        changed=changed,
    )
    for step in (
        _import_categories,
        _import_personas,
        _import_products,
        _import_stories,
        _import_cells,
        _prune_structure,
        _import_adjacent,
    ):
        step(run)

    report.arena = arena
    report.changed = run.changed
    report.stories = len(ov.stories)
    report.cells = len(ov.stories) * len(ov.products)
    report.detailed_cells = len(record.details)
    if run.changed or not ProductScore.objects.filter(arena=arena).exists():
        arena_mark_stale(arena_id=arena.pk)
    return report
