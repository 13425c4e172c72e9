"""Writes of the arena app: the admin's edits of an arena's structure (its own fields, categories,
sub-groups, personas, adjacent arenas). The import is ``arena.imports``; products' and stories'
edits are ``products.services`` and ``stories.story_services``.

Every change that can move a score calls ``arena.recompute.arena_mark_stale`` inside its transaction;
every other change of what a page shows calls ``arena_content_changed``, for every arena whose pages
show it. An edit carries the version the editor read (``core.conflicts.versioned_update``): a stale
edit of a field that moved meanwhile is refused (``EditConflict``), one of other fields is merged.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from arena.models import AdjacentArena, Arena, Category, Persona, PersonaResult, SubGroup
from arena.recompute import arena_content_changed, arena_mark_stale
from arena.signals import purge_after_commit
from core.conflicts import EditConflict, versioned_update
from core.models import VersionedRecord
from core.text import clean_text
from stories.models import Story

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
    arena_id = arena.pk
    if _deleted(arena, what="arena", base_version=base_version, base=base) is not None:
        # its pages, and the site-wide ones that listed it, leave the HTTP cache in front
        purge_after_commit(arenas=[arena_id])


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
