"""Writes of the arena app: the page import, and the admin's edits of an arena's structure (its own
fields, categories, sub-groups, personas, adjacent arenas).

Every change that can move a score calls ``arena.recompute.arena_mark_stale`` inside its transaction;
every other change of what a page shows calls ``arena_content_changed``, for every arena whose pages
show it. An edit carries the version the editor read (``stories.services.versioned_update``): a stale
edit of a field that moved meanwhile is refused (``EditConflict``), one of other fields is merged.
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
    PersonaResult,
    ProductScore,
    SubGroup,
    VersionedRecord,
)
from arena.recompute import arena_content_changed, arena_mark_stale
from arena.text import arena_slugify, clean_text, parse_figure
from products.models import Product
from stories import freshness
from stories.models import Cell, CellChange, Evidence, Story
from stories.services import EditConflict, cell_set_value, versioned_update
from stories.values import CellValue

log = logging.getLogger(__name__)


# ---------------------------------------------------------------- admin edits of the structure

# The fields an editor may change, per kind; the rest belongs to the import or the recompute.
ARENA_EDITABLE_FIELDS = ("slug", "name", "description", "updated", "evidence_as_of")
CATEGORY_EDITABLE_FIELDS = ("name", "blurb", "position")
SUBGROUP_EDITABLE_FIELDS = ("name", "position")
PERSONA_EDITABLE_FIELDS = ("slug", "label")
ADJACENT_EDITABLE_FIELDS = ("arena", "name", "product_count", "leader", "shares", "position")


def _added(row: VersionedRecord, fields: Iterable[str]) -> None:
    """Save a row added in the admin (its text as stored text), marked as an admin edit."""
    for name in fields:
        value = getattr(row, name)
        if isinstance(value, str):
            setattr(row, name, clean_text(value).strip())
    row.edited_at = timezone.now()
    row.save()


def _updated(
    row: VersionedRecord,
    *,
    what: str,
    changed: Iterable[str],
    fields: Iterable[str],
    base_version: int | None,
    base: dict | None,
) -> list[str]:
    """Write the editable fields named in ``changed`` with the values ``row`` holds, checked against
    the version the editor read; an edit that wrote something marks the row as edited now."""
    model = type(row)
    changes = {name: getattr(row, name) for name in changed if name in fields}
    written = versioned_update(
        model, obj=row, what=what, changes=changes, base_version=base_version, base=base
    )
    if written:
        row.edited_at = timezone.now()
        model._default_manager.filter(pk=row.pk).update(edited_at=row.edited_at)
    return written


def _deleted[R: VersionedRecord](
    row: R, *, what: str, base_version: int | None, base: dict | None
) -> R | None:
    """Delete a row, unless it changed since the editor read it (they would delete what they have
    not seen): then EditConflict names what moved. Returns the row as it was deleted (None when it
    was already gone)."""
    model = type(row)
    current = model._default_manager.select_for_update().filter(pk=row.pk).first()
    if current is None:
        return None
    if base_version is not None and current.version != base_version:
        moved = {
            name: (read, getattr(current, name), None)
            for name, read in (base or {}).items()
            if getattr(current, name) != read
        }
        raise EditConflict(what, moved, current)
    current.delete()  # PROTECT: a row that stories still use is refused (ProtectedError)
    return current


@transaction.atomic
def arena_save(
    *,
    arena: Arena,
    changed: Iterable[str],
    base_version: int | None = None,
    base: dict | None = None,
) -> Arena:
    """Save an arena added or edited in the admin. Only the editable fields the editor changed are
    written, never the score bookkeeping and content version a recompute may be writing meanwhile,
    and not over someone else's change of the same field (``base_version``, ``base``: what the
    editor read; EditConflict). The content version moves on."""
    if arena.pk is None:
        _added(arena, ARENA_EDITABLE_FIELDS)
    else:
        _updated(
            arena,
            what="arena",
            changed=changed,
            fields=ARENA_EDITABLE_FIELDS,
            base_version=base_version,
            base=base,
        )
    arena_content_changed(arena_id=arena.pk)
    return arena


@transaction.atomic
def arena_delete(
    *, arena: Arena, base_version: int | None = None, base: dict | None = None
) -> None:
    """Delete an arena that holds no stories or products (PROTECT refuses the others: they are
    retired, never deleted); its pages go with it."""
    _deleted(arena, what="arena", base_version=base_version, base=base)


@transaction.atomic
def category_save(
    *,
    category: Category,
    changed: Iterable[str],
    base_version: int | None = None,
    base: dict | None = None,
) -> Category:
    """Save a category added or edited in the admin (see ``arena_save`` for the version check).
    Scores are stored per category name, so a new category or a new name recomputes its arena. A
    category stays in its arena (its stories do)."""
    if category.pk is None:
        _added(category, CATEGORY_EDITABLE_FIELDS)
        arena_mark_stale(arena_id=category.arena_id)
        return category
    arena_id = Category.objects.values_list("arena_id", flat=True).get(pk=category.pk)
    if arena_id != category.arena_id:
        raise ValidationError({"arena": "A category stays in its arena; add one to the other."})
    written = _updated(
        category,
        what="category",
        changed=changed,
        fields=CATEGORY_EDITABLE_FIELDS,
        base_version=base_version,
        base=base,
    )
    if "name" in written:
        arena_mark_stale(arena_id=category.arena_id)
    elif written:
        arena_content_changed(arena_id=category.arena_id)
    return category


@transaction.atomic
def category_delete(
    *, category: Category, base_version: int | None = None, base: dict | None = None
) -> None:
    """Delete a category no story uses (PROTECT refuses the others); its arena recomputes, as
    scores are stored per category."""
    if _deleted(category, what="category", base_version=base_version, base=base):
        arena_mark_stale(arena_id=category.arena_id)


def _subgroup_arena(subgroup: SubGroup) -> int:
    return Category.objects.values_list("arena_id", flat=True).get(pk=subgroup.category_id)


@transaction.atomic
def subgroup_save(
    *,
    subgroup: SubGroup,
    changed: Iterable[str],
    base_version: int | None = None,
    base: dict | None = None,
) -> SubGroup:
    """Save a sub-group added or edited in the admin (see ``arena_save`` for the version check). A
    sub-group stays in its category (its stories sit in both)."""
    if subgroup.pk is None:
        _added(subgroup, SUBGROUP_EDITABLE_FIELDS)
    else:
        category_id = SubGroup.objects.values_list("category_id", flat=True).get(pk=subgroup.pk)
        if category_id != subgroup.category_id:
            raise ValidationError(
                {"category": "A sub-group stays in its category; add one to the other."}
            )
        if not _updated(
            subgroup,
            what="sub-group",
            changed=changed,
            fields=SUBGROUP_EDITABLE_FIELDS,
            base_version=base_version,
            base=base,
        ):
            return subgroup
    arena_content_changed(arena_id=_subgroup_arena(subgroup))
    return subgroup


@transaction.atomic
def subgroup_delete(
    *, subgroup: SubGroup, base_version: int | None = None, base: dict | None = None
) -> None:
    """Delete a sub-group no story uses (PROTECT refuses the others)."""
    arena_id = _subgroup_arena(subgroup)
    if _deleted(subgroup, what="sub-group", base_version=base_version, base=base):
        arena_content_changed(arena_id=arena_id)


def _persona_arenas(persona_id: int) -> set[int]:
    """The arenas whose pages show a persona: those of its stories and its stored results."""
    return set(
        Story.all_objects.filter(persona_id=persona_id).values_list("arena_id", flat=True)
    ) | set(PersonaResult.objects.filter(persona_id=persona_id).values_list("arena_id", flat=True))


@transaction.atomic
def persona_save(
    *,
    persona: Persona,
    changed: Iterable[str],
    base_version: int | None = None,
    base: dict | None = None,
) -> Persona:
    """Save a persona added or edited in the admin (see ``arena_save`` for the version check).
    Personas are shared: an edit changes the pages of every arena that uses it, and scores are
    stored per persona slug, so a new slug recomputes them."""
    if persona.pk is None:
        _added(persona, PERSONA_EDITABLE_FIELDS)  # no arena uses it yet
        return persona
    written = _updated(
        persona,
        what="persona",
        changed=changed,
        fields=PERSONA_EDITABLE_FIELDS,
        base_version=base_version,
        base=base,
    )
    if written:
        for arena_id in _persona_arenas(persona.pk):
            if "slug" in written:
                arena_mark_stale(arena_id=arena_id)
            else:  # its label shows on the pages
                arena_content_changed(arena_id=arena_id)
    return persona


@transaction.atomic
def persona_delete(
    *, persona: Persona, base_version: int | None = None, base: dict | None = None
) -> None:
    """Delete a persona no story uses (PROTECT refuses the others); arenas that still showed it (a
    stored result) recompute."""
    arena_ids = _persona_arenas(persona.pk)  # read before: its results go with it (cascade)
    _deleted(persona, what="persona", base_version=base_version, base=base)
    for arena_id in arena_ids:
        arena_mark_stale(arena_id=arena_id)


@transaction.atomic
def adjacent_arena_save(
    *,
    adjacent: AdjacentArena,
    changed: Iterable[str],
    base_version: int | None = None,
    base: dict | None = None,
) -> AdjacentArena:
    """Save an adjacent arena added or edited in the admin (see ``arena_save`` for the version
    check). Moved to another arena, it leaves the old one's pages and joins the new one's: both
    change."""
    if adjacent.pk is None:
        _added(adjacent, ADJACENT_EDITABLE_FIELDS)
        arena_content_changed(arena_id=adjacent.arena_id)
        return adjacent
    # locked first, so that the arena it leaves is the one it was in
    was_in = (
        AdjacentArena.objects.select_for_update()
        .values_list("arena_id", flat=True)
        .get(pk=adjacent.pk)
    )
    if _updated(
        adjacent,
        what="adjacent arena",
        changed=changed,
        fields=ADJACENT_EDITABLE_FIELDS,
        base_version=base_version,
        base=base,
    ):
        for arena_id in {was_in, adjacent.arena_id}:
            arena_content_changed(arena_id=arena_id)
    return adjacent


@transaction.atomic
def adjacent_arena_delete(
    *, adjacent: AdjacentArena, base_version: int | None = None, base: dict | None = None
) -> None:
    """Delete an adjacent arena: its arena's pages no longer list it."""
    gone = _deleted(adjacent, what="adjacent arena", base_version=base_version, base=base)
    if gone is not None:  # from the arena it was in, which may not be the one the editor saw
        arena_content_changed(arena_id=gone.arena_id)


# ---------------------------------------------------------------- import


# What an import reports, per kind of row, in this order.
IMPORT_KINDS = (
    "arena",
    "category",
    "sub-group",
    "persona",
    "product",
    "story",
    "cell",
    "evidence",
    "adjacent arena",
)
# The actions that change what the site holds: an import with none of them wrote nothing.
WRITING_ACTIONS = ("added", "changed", "re-dated", "restored", "retired", "removed")
REPORT_ACTIONS = (*WRITING_ACTIONS, "kept")


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
    # rows whose edited or moderated parts the import kept (or, told to, overwrote), one line each
    kept: list[str] = field(default_factory=list)
    overwritten: list[str] = field(default_factory=list)
    # kind → action → how many rows (IMPORT_KINDS, REPORT_ACTIONS)
    tally: dict[str, dict[str, int]] = field(default_factory=dict)

    def count(self, kind: str, action: str, n: int = 1) -> None:
        if n:
            counts = self.tally.setdefault(kind, {})
            counts[action] = counts.get(action, 0) + n

    @property
    def wrote(self) -> bool:
        return any(counts.get(a) for counts in self.tally.values() for a in WRITING_ACTIONS)

    def tally_lines(self) -> list[str]:
        """``cell: 2 changed, 1 kept`` for each kind the import added to, changed, retired or kept."""
        lines = []
        for kind in IMPORT_KINDS:
            counts = self.tally.get(kind, {})
            parts = [f"{counts[a]} {a}" for a in REPORT_ACTIONS if counts.get(a)]
            if parts:
                lines.append(f"{kind}: {', '.join(parts)}")
        return lines


def _sync(obj: Model, values: dict, *, bump: bool = True) -> bool:
    """Set changed fields on obj and save them; return whether anything changed. A versioned row
    (``version``) moves to its next version, so an admin form opened before the import is stale
    (``bump=False``: a position put back after the shift out of the way is no edit)."""
    changed = [k for k, v in values.items() if getattr(obj, k) != v]
    for k in changed:
        setattr(obj, k, values[k])
    if changed:
        obj.save(update_fields=changed)
        if bump and isinstance(obj, VersionedRecord):
            type(obj)._base_manager.filter(pk=obj.pk).update(version=F("version") + 1)
            obj.version += 1
    return bool(changed)


def _keep_edited(run: _ImportRun, row: VersionedRecord, values: dict, kind: str, what: str) -> None:
    """A structure row an admin edited since the import that last wrote it keeps the edited
    values over the page's (removed from ``values``), one report line each; told to overwrite,
    the page's win and the row counts as imported again."""
    if not row.edited_since_import:
        return
    report = run.report
    differing = [k for k, v in values.items() if getattr(row, k) != v]
    for name in differing:
        line = (
            f"edited {name} {getattr(row, name)!r} of {what} ({_day(row.edited_at)}; "
            f"{run.says} {values[name]!r})"
        )
        if run.overwrite:
            report.overwritten.append(f"overwrote {line}")
        else:
            report.kept.append(f"kept {line}")
            del values[name]
    if differing and run.overwrite:
        values["imported_at"] = timezone.now()
    elif differing:
        report.count(kind, "kept")


def _keep_added(run: _ImportRun, row: VersionedRecord, kind: str, what: str) -> bool:
    """A row the pages no longer list that an admin added or edited since the import that last
    wrote it stays (unless told to overwrite): whether it is kept."""
    if run.overwrite or not row.edited_since_import:
        return False
    run.report.kept.append(
        f"kept {what}, added or edited in the admin ({_day(row.edited_at)}; "
        f"not {'in the file' if run.record.exact else 'on the pages'})"
    )
    run.report.count(kind, "kept")
    return True


def _place(obj: Category | SubGroup | Product | Story, values: dict, pos: int, was: int) -> bool:
    """Write a listed row's values and its position (``was``: where it stood before the bulk shift
    out of the way); whether what the pages show of it changed."""
    changed = _sync(obj, values)
    _sync(obj, {"position": pos}, bump=pos != was and not changed)
    return changed or pos != was


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
        _sync(row, {"position": pos}, bump=False)


# what an admin edit of a story or a product changes, and a re-import keeps when the edit came
# after the import that last wrote the row
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


def _keep_edits(
    row: Story | Product,
    values: dict,
    fields: Iterable[str],
    what: str,
    report: ImportReport,
    *,
    overwrite: bool,
) -> bool:
    """Keep the row's edited values over the page's (in ``values``), or with ``overwrite`` let the
    page's win; one report line each. Whether any differed."""
    differed = False
    for name in fields:
        current = getattr(row, name)
        if current != values[name]:
            differed = True
            line = (
                f"edited {name} {current} of {what} ({_day(row.edited_at)}; "
                f"page says {values[name]})"
            )
            if overwrite:
                report.overwritten.append(f"overwrote {line}")
            else:
                report.kept.append(f"kept {line}")
                values[name] = current
    return differed


def _day(at: datetime | None) -> str:
    return "" if at is None else f"{timezone.localtime(at):%Y-%m-%d}"


def _retire_gone(
    rows: Iterable[Story | Product], what: str, offset: int, listed: int, report: ImportReport
) -> None:
    """Retire the rows the pages no longer list (never delete them) and place them after the
    listed ones; ``offset`` mirrors the bulk shift of positions."""
    rows = list(rows)
    now = timezone.now()
    for row in rows:
        row.position += offset
        if row.retired_at is None:
            _sync(row, {"retired_at": now})
            report.retired.append(f"{what} {str(row)!r}")
            report.count(what, "retired")
    _place_after(rows, listed)


def import_date_errors(record: ArenaRecord) -> list[str]:
    """The dates a record claims after today (the server's date): a file or page dated in the
    future is refused whole, so no claimed date can outrank a moderator's decision of today."""
    today = freshness.today()
    ov = record.overview
    claims: list[tuple[str, date | None]] = [
        ("its updated date", ov.updated),
        ("its evidence date", ov.evidence_as_of),
    ]
    for name, product in (record.products or {}).items():
        claims.append((f"the popularity date of {name!r}", product.popularity_as_of))
    for (text, name), detail in record.details.items():
        claims.append((f"the evidence date of {name!r} on “{text}”", detail.evidence_as_of))
        claims.extend(
            (f"the date of quote {i + 1} of {name!r} on “{text}”", e.checked_on)
            for i, e in enumerate(detail.evidence)
        )
    return [
        f"{ov.path}: {what} {day:%Y-%m-%d} is after today ({today:%Y-%m-%d}); a file cannot be "
        "dated in the future (nothing was imported)"
        for what, day in claims
        if day is not None and day > today
    ]


@dataclass
class _ImportRun:
    """One import's state, passed from step to step."""

    record: ArenaRecord
    arena: Arena
    report: ImportReport
    overwrite: bool
    # positions are shifted out of the way first so the unique (arena, position) constraints hold
    # while reordering
    offset: int = 10_000_000
    categories: dict[str, Category] = field(default_factory=dict)
    subgroups: dict[tuple[str, str], SubGroup] = field(default_factory=dict)
    gone_groups: list[SubGroup] = field(default_factory=list)
    removed_categories: list[Category] = field(default_factory=list)
    personas: dict[str, Persona] = field(default_factory=dict)
    # personas whose label the import changed: every arena that shows them changes
    relabelled: list[int] = field(default_factory=list)
    products: dict[str, Product] = field(default_factory=dict)
    stories: dict[str, Story] = field(default_factory=dict)

    @property
    def says(self) -> str:
        return "file says" if self.record.exact else "page says"


def _named[Named: (Category, SubGroup, AdjacentArena)](
    rows: Iterable[Named], names: Iterable[str], path: str, what: str
) -> dict[str, Named]:
    """The rows the pages name, by the name the pages gave them (``page_name``: an admin may have
    renamed one since), else by their name (a file exported after the rename). A name the pages
    give that an admin gave another row meanwhile is refused (nothing is imported)."""
    rows = list(rows)
    by_key = {(r.page_name or r.name): r for r in rows}
    by_name = {r.name: r for r in rows}
    found: dict[str, Named] = {}
    for name in names:
        row = by_key.get(name) or by_name.get(name)
        if row is not None and row.pk not in {r.pk for r in found.values()}:
            found[name] = row
    for name in names:
        holder = by_name.get(name)
        if name not in found and holder is not None:
            raise ImportRefused(
                f"{path}: {what} {name!r} would take the name an admin gave the {what} "
                f"{holder.page_name!r}; rename one of them (nothing was imported)"
            )
    return found


def _import_categories(run: _ImportRun) -> None:
    """Categories and sub-groups in page order; the ones the pages dropped wait for
    ``_prune_structure`` (a retired story may still use them)."""
    ov, arena, offset, report = run.record.overview, run.arena, run.offset, run.report
    rows = list(Category.objects.filter(arena=arena))
    existing_cats = _named(rows, [c.name for c in ov.categories], ov.path, "category")
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
            _keep_edited(run, cat, values, "category", f"the category {rec.name!r}")
            if _place(cat, values, pos, was):
                report.count("category", "changed")
            _sync(cat, {"page_name": rec.name}, bump=False)
        cats[rec.name] = cat
        names = [g for g in rec.groups if g is not None]
        group_rows = list(SubGroup.objects.filter(category=cat))
        found = _named(group_rows, names, ov.path, "sub-group")
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
                _keep_edited(run, grp, values, "sub-group", f"the sub-group {gname!r}")
                if _place(grp, values, gpos, was):
                    report.count("sub-group", "changed")
                _sync(grp, {"page_name": gname}, bump=False)
            subgroups[(rec.name, gname)] = grp
        for grp in existing_groups.values():
            grp.position += offset
        gone_groups.extend(existing_groups.values())
        _place_after(existing_groups.values(), len(names))


def _import_personas(run: _ImportRun) -> None:
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
            _keep_edited(run, persona, values, "persona", f"the persona {slug_!r}")
            if _sync(persona, values):
                report.count("persona", "changed")
                run.relabelled.append(persona.pk)
            _sync(persona, {"page_slug": slug_}, bump=False)
        personas[slug_] = persona


def _import_products(run: _ImportRun) -> None:
    """Every product the pages list is active; the others are retired, never deleted."""
    ov, arena, report = run.record.overview, run.arena, run.report
    offset, overwrite = run.offset, run.overwrite
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
        values = values_of[name]
        product = existing_products.pop(name, None)
        if product is None:
            clashes.check(None, values)
            product = Product.all_objects.create(arena=arena, position=pos, **values)
            report.count("product", "added")
            products[name] = product
            continue
        was = product.position
        product.position += offset
        edited = product.edited_since_import
        if edited and _keep_edits(
            product,
            values,
            PRODUCT_EDIT_FIELDS,
            f"the product {name!r}",
            report,
            overwrite=overwrite,
        ):
            report.count("product", "kept" if not overwrite else "changed")
        if product.retired_at is not None and edited and not overwrite:
            report.kept.append(
                f"kept the product {name!r} retired ({_day(product.edited_at)}; the pages list it)"
            )
            report.count("product", "kept")
        elif product.retired_at is not None:
            _sync(product, {"retired_at": None})
            report.restored.append(f"product {name!r}")
            report.count("product", "restored")
        if edited and overwrite:
            values["imported_at"] = timezone.now()
        clashes.check(product, values)
        if _place(product, values, pos, was):
            report.count("product", "changed")
        products[name] = product
    _retire_gone(existing_products.values(), "product", offset, len(products), report)


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
    offset, overwrite = run.offset, run.overwrite
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
        }
        if weight is None and story is not None and story.weight_published:
            # pages that give no weight (an overview page alone) leave a known weight alone
            values["weight"], values["weight_published"] = story.weight, True
        elif weight is None:
            report.default_weight_stories.append(ms.text)
        if story is None:
            story = Story.all_objects.create(arena=arena, position=pos, **values)
            report.count("story", "added")
            stories[ms.text] = story
            continue
        was = story.position
        story.position += offset
        edited = story.edited_since_import
        if edited:
            if _keep_edits(
                story,
                values,
                STORY_EDIT_FIELDS,
                f"the story “{ms.text}”",
                report,
                overwrite=overwrite,
            ):
                report.count("story", "kept" if not overwrite else "changed")
            if values["weight"] == story.weight:
                values["weight_published"] = story.weight_published
            if overwrite:
                values["imported_at"] = timezone.now()
        if story.retired_at is not None and edited and not overwrite:
            report.kept.append(
                f"kept the story “{ms.text}” retired ({_day(story.edited_at)}; the pages list it)"
            )
            report.count("story", "kept")
        elif story.retired_at is not None:
            _sync(story, {"retired_at": None})
            report.restored.append(f"story {ms.text!r}")
            report.count("story", "restored")
        if _place(story, values, pos, was):
            report.count("story", "changed")
        stories[ms.text] = story
    _retire_gone(existing_stories.values(), "story", offset, len(stories), report)


def _quotes(items: Iterable, exact: bool) -> tuple:
    """Evidence items as the import compares them: source and quote, with an arena file their url
    and date too."""
    if exact:
        return tuple((e.source, e.quote, e.url or "", e.checked_on) for e in items)
    return tuple((e.source, e.quote) for e in items)


def _quotes_text(items: tuple) -> str:
    """``2 quotes: docs “Workflows pause…”, community “…”`` (a report's summary of evidence)."""
    if not items:
        return "no quotes"
    shown = ", ".join(f"{q[0]} “{q[1][:40]}{'…' if len(q[1]) > 40 else ''}”" for q in items[:3])
    more = f" and {len(items) - 3} more" if len(items) > 3 else ""
    return f"{len(items)} quote{'s' if len(items) != 1 else ''}: {shown}{more}"


@dataclass(frozen=True)
class _CellParts:
    """Every part of a cell an import compares: what a file or the pages state of it."""

    value: CellValue
    rationale: str
    published: bool
    quotes: tuple
    evidence_as_of: date | None  # compared for arena files only (the pages give one date)


def _differing(now: _CellParts, file: _CellParts, *, detailed: bool, exact: bool) -> list[str]:
    """The parts of a cell the file would change: ``value``, ``rationale``, ``evidence`` (its
    quotes), ``date`` (when its evidence was checked: an arena file states it). A file or pages
    that do not detail a cell whose detail is published speak for its value only."""
    parts = ["value"] if now.value != file.value else []
    if detailed:
        if (now.rationale, now.published) != (file.rationale, file.published):
            parts.append("rationale")
        if now.quotes != file.quotes:
            parts.append("evidence")
        if exact and now.evidence_as_of != file.evidence_as_of:
            parts.append("date")
    return parts


def _cell_conflict(
    run: _ImportRun,
    cell: Cell,
    now: _CellParts,
    file: _CellParts,
    parts: list[str],
    where: str,
    last: CellChange | None,
) -> list[str]:
    """The report's lines for a moderated cell whose ``parts`` the file would change (a decision
    checks the cell on its day: a date that differs alone is kept without a line)."""
    day = _day(cell.edited_at)
    lines = []
    for part in parts:
        if part == "value":
            kind = last.get_kind_display() if last is not None else "moderated"
            lines.append(
                f"{kind} value {now.value.label()} of {where} ({day}; {run.says} "
                f"{file.value.label()})"
            )
        elif part == "rationale":
            lines.append(f"edited rationale of {where} ({day}; the {run.says[:-5]}'s differs)")
        elif part == "evidence":
            lines.append(
                f"moderated evidence on {where} ({day}: {_quotes_text(now.quotes)}; "
                f"{run.says} {_quotes_text(file.quotes)})"
            )
    return lines


def _import_cells(run: _ImportRun) -> None:
    """Cells and their evidence. Every part of a cell is compared (judgement, rationale, each
    quote and its source); a cell a moderator or an editor changed since an import last wrote it
    keeps all of it (see ``arena_import``)."""
    record, ov, arena, report = run.record, run.record.overview, run.arena, run.report
    overwrite = run.overwrite
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
    overwritten: list[int] = []
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
            file = _CellParts(
                value=CellValue(mark.verdict, mark.proof, mark.quality),
                rationale=rationale,
                published=detail is not None and detail.published,
                quotes=_quotes(evidence, exact),
                evidence_as_of=detail.evidence_as_of if detail else None,
            )
            now = _CellParts(
                value=CellValue.of(cell),
                rationale=cell.rationale,
                published=cell.detail_published,
                quotes=_quotes(cell.evidence.all(), exact),
                evidence_as_of=cell.evidence_as_of,
            )
            # pages that do not detail this cell leave its published detail alone
            detailed = detail is not None or not cell.detail_published
            parts = _differing(now, file, detailed=detailed, exact=exact)
            if not parts:
                if detail is not None:
                    evidence_kept.append(cell.pk)
                continue
            kind, note = CellChange.Kind.IMPORT, f"Imported from {ov.path}"
            record_unchanged = False
            if cell.edited_since_import:
                where = f"{pname} on “{ms.text}”"
                last = moderated.get(cell.pk)
                lines = _cell_conflict(run, cell, now, file, parts, where, last)
                if not overwrite and not lines:
                    kept_cells.append(cell.pk)
                    continue  # the decision's own date: nothing to report
                if not overwrite:
                    report.kept.extend(f"kept {line}" for line in lines)
                    report.count("cell", "kept")
                    if "evidence" in parts:
                        report.count("evidence", "kept")
                    kept_cells.append(cell.pk)
                    continue  # every part of the cell stays as moderated
                report.overwritten.extend(f"overwrote {line}" for line in lines)
                overwritten.append(cell.pk)
                # recorded publicly even when only the words or the quotes change
                kind, record_unchanged = CellChange.Kind.IMPORT_OVERRIDE, True
                what = f"the {last.get_kind_display()} value" if last else "the moderated"
                note = (
                    f"Imported from {ov.path} over {what} {now.value.label()} ({', '.join(parts)})"
                    f" of {_day(cell.edited_at)}"
                )
            if "value" in parts or record_unchanged:
                cell_set_value(
                    cell=cell,
                    value=file.value,
                    kind=kind,
                    note=note,
                    expected_version=cell.version,
                    mark_stale=False,
                    record_unchanged=record_unchanged,
                )
            if "value" in parts or "rationale" in parts:
                report.count("cell", "changed")
            fields: dict = {}
            if detailed:
                fields = {"rationale": rationale, "detail_published": file.published}
                if rationale != cell.rationale or "value" in parts:
                    # the page's rationale beside the page's judgement: it predates no correction
                    fields["rationale_predates"] = None
                if rationale != cell.rationale:
                    fields["rationale_rewritten_at"] = None  # no longer the correction's words
            _sync(cell, fields)
            if "date" in parts and detail is not None:
                report.count("cell", "re-dated")
                redated.setdefault(detail.evidence_as_of, []).append(cell.pk)
            if "evidence" in parts:
                report.count("evidence", "changed")
                cell.evidence.all().delete()
                evidence_for.append((cell, evidence))
            elif detail is not None:
                evidence_kept.append(cell.pk)
            # an admin form opened before the import is now stale
            Cell.objects.filter(pk=cell.pk).update(version=F("version") + 1)
    # a product or story that comes back (or is new) beside retired rows: every pair has a cell
    for cell in new_cells:
        cell.imported_at = timezone.now()
    Cell.objects.bulk_create(new_cells)
    report.count("cell", "added", len(new_cells))
    report.count(
        "evidence", "added", sum(1 for cell, ev in evidence_for if cell in new_cells and ev)
    )
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
    for start in range(0, len(overwritten), 2000):  # (SQLite's limit on a query's parameters)
        # (the time of the write, after the cells' lock: an edit before it is taken up)
        Cell.objects.filter(pk__in=overwritten[start : start + 2000]).update(
            imported_at=timezone.now()
        )
    if exact:
        # each cell is checked on the day the file says (a statement a re-import can move back)
        for day, pks in redated.items():
            for start in range(0, len(pks), 2000):
                Cell.objects.filter(pk__in=pks[start : start + 2000]).update(evidence_as_of=day)
    elif checked_on is not None:
        report.count("cell", "re-dated", _date_cells(run, checked_on, kept_cells, evidence_kept))


def _date_cells(run: _ImportRun, day: date, kept: list[int], evidence_kept: list[int]) -> int:
    """The pages state every verdict (and the quotes they detail) as of ``day``: the cells on
    them, but those kept as moderated, are checked then unless checked later (a date never moves
    back). Two statements; how many cells' dates moved (what the pages show changed)."""
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
    return cells or (1 if quotes else 0)


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
        if g.pk not in used_groups and not _keep_added(
            run, g, "sub-group", f"the sub-group {g.name!r}"
        ):
            report.removed.append(f"sub-group {g.name!r}")
            report.count("sub-group", "removed")
            g.delete()
    kept_cats = []
    for c in removed_cats:
        if c.pk in used_cats or _keep_added(run, c, "category", f"the category {c.name!r}"):
            kept_cats.append(c)
        else:
            report.removed.append(f"category {c.name!r}")
            report.count("category", "removed")
            c.delete()
    _place_after(kept_cats, len(cats))


def _import_adjacent(run: _ImportRun) -> None:
    """The adjacent arenas, as the pages list them."""
    ov, arena, report = run.record.overview, run.arena, run.report
    rows = list(AdjacentArena.objects.filter(arena=arena))
    found = _named(rows, [a.name for a in ov.adjacent], ov.path, "adjacent arena")
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
        _keep_edited(run, obj, values, "adjacent arena", f"the adjacent arena {adj.name!r}")
        if _sync(obj, values):
            report.count("adjacent arena", "changed")
        _sync(obj, {"page_name": adj.name}, bump=False)
    for obj in existing_adj.values():
        if _keep_added(run, obj, "adjacent arena", f"the adjacent arena {obj.name!r}"):
            continue
        report.removed.append(f"adjacent arena {obj.name!r}")
        report.count("adjacent arena", "removed")
        obj.delete()


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
    ov = record.overview
    errors = import_date_errors(record)
    if errors:
        raise ImportRefused("\n".join(errors))
    report = ImportReport()
    slug = record.slug or arena_slugify(ov.name)
    # by slug, else by name (an admin may have changed the slug); a clash is refused
    arena = import_arena_find(record, slug=slug)
    report.created = arena is None
    fields = {
        "name": ov.name,
        "description": ov.description,
        "updated": ov.updated,
        "evidence_as_of": ov.evidence_as_of,
    }
    if arena is None:
        arena = Arena.objects.create(slug=slug, **fields)
        report.count("arena", "added")
    run = _ImportRun(record=record, arena=arena, report=report, overwrite=overwrite_moderated)
    if not report.created:
        _keep_edited(run, arena, fields, "arena", f"the arena {ov.name!r}")
        if _sync(arena, fields):
            report.count("arena", "changed")
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
