"""Versioned admin edits of an arena's structure: a stale edit of a moved field is refused."""

from __future__ import annotations

from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import ProtectedError
from django.utils import timezone

from arena.models import AdjacentArena, Arena, Category, Persona, PersonaResult, SubGroup
from arena.recompute import arena_content_changed, arena_mark_stale
from core.conflicts import EditConflict, versioned_update
from core.models import VersionedRecord
from core.text import clean_text
from stories.models import Story

# The fields an editor may change, per model; the rest belongs to the import or the recompute.
EDITABLE: dict[type[VersionedRecord], tuple[str, ...]] = {
    Arena: ("slug", "name", "description", "updated", "evidence_as_of"),
    Category: ("name", "blurb", "position"),
    SubGroup: ("name", "position"),
    Persona: ("slug", "label"),
    AdjacentArena: ("arena", "name", "product_count", "leader", "shares", "position"),
}
# Scores are stored per category name and persona slug: changing one recomputes.
SCORED: dict[type[VersionedRecord], str] = {Category: "name", Persona: "slug"}
# A row that stays where it is: its stories belong there.
STAYS_IN: dict[type[VersionedRecord], str] = {Category: "arena", SubGroup: "category"}
WHAT: dict[type[VersionedRecord], str] = {SubGroup: "sub-group"}


def what(model: type[VersionedRecord]) -> str:
    return WHAT.get(model, str(model._meta.verbose_name))


def _arenas(row: VersionedRecord) -> set[int]:
    """The arenas whose pages show the row."""
    if isinstance(row, Arena):
        return {row.pk}
    if isinstance(row, SubGroup):
        return {Category.objects.values_list("arena_id", flat=True).get(pk=row.category_id)}
    if isinstance(row, Persona):
        stories = Story.all_objects.filter(persona_id=row.pk).values_list("arena_id", flat=True)
        results = PersonaResult.objects.filter(persona_id=row.pk).values_list("arena_id", flat=True)
        return set(stories) | set(results)
    assert isinstance(row, Category | AdjacentArena)
    return {row.arena_id}


def _changed(arena_ids: Iterable[int], scored: bool) -> None:
    for arena_id in arena_ids:
        (arena_mark_stale if scored else arena_content_changed)(arena_id=arena_id)


@transaction.atomic
def structure_save[R: VersionedRecord](
    row: R, *, changed: Iterable[str], base_version: int | None = None, base: dict | None = None
) -> R:
    """Save an admin's row: only the fields the editor changed, not over a newer change of one."""
    model = type(row)
    fields = EDITABLE[model]
    if row.pk is None:
        for name in fields:
            if isinstance(value := getattr(row, name), str):
                setattr(row, name, clean_text(value).strip())
        row.edited_at = timezone.now()
        row.save()
        arenas, written = _arenas(row), list(fields)
    else:
        current = model._default_manager.select_for_update().get(pk=row.pk)
        place = STAYS_IN.get(model)
        if place and getattr(current, f"{place}_id") != getattr(row, f"{place}_id"):
            message = f"A {what(model)} stays in its {place}; add one to the other."
            raise ValidationError({place: message})
        arenas = _arenas(current)  # (an adjacent arena moved leaves the old one's pages)
        changes = {name: getattr(row, name) for name in changed if name in fields}
        written = versioned_update(
            model, obj=row, what=what(model), changes=changes, base_version=base_version, base=base
        )
        arenas |= _arenas(row)
    if written or model is Arena:
        _changed(arenas, SCORED.get(model) in written)
    return row


@transaction.atomic
def structure_delete(
    row: VersionedRecord, *, base_version: int | None = None, base: dict | None = None
) -> None:
    """Delete a row unless it changed since the editor read it or stories use it."""
    model = type(row)
    if (current := model._default_manager.select_for_update().filter(pk=row.pk).first()) is None:
        return
    if base_version is not None and current.version != base_version:
        moved = {
            name: (read, getattr(current, name), None)
            for name, read in (base or {}).items()
            if getattr(current, name) != read
        }
        raise EditConflict(what(model), moved, current)
    arenas = _arenas(current)  # read first: a persona's results go with it
    try:
        current.delete()
    except ProtectedError as exc:
        used = len(exc.protected_objects)
        raise ValidationError(f"{current} is still in use, by {used} row(s).") from exc
    _changed(arenas, model in SCORED)
