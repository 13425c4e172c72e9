"""Writes of a cell. ``cell_correct`` is the one way its judgement changes (an upheld flag, an
editor's edit, an import): under the cell's lock, as one new version, with a public record."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any, TypedDict, Unpack

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from core.conflicts import EditConflict
from core.edits import merge_edit
from core.signals import arena_content_changed, arena_mark_stale
from core.text import clean_text
from stories import freshness
from stories.corrections import Imported, imported_writes, judgement_writes, rationale_writes
from stories.evidence import (
    EVIDENCE_FIELDS,
    Quote,
    evidence_checked_writes,
    evidence_errors,
    evidence_insert,
    evidence_new,
    evidence_rows,
)
from stories.models import Cell, CellChange, Evidence, Story
from stories.selectors import cell_last_change_note
from stories.values import JUDGEMENT_FIELDS, CellValue

Actor = AbstractBaseUser | AnonymousUser  # who makes a change (anonymous, or an import: no one)


class Correction(TypedDict, total=False):
    by: Actor | None  # who corrects it (None: an import)
    note: str  # the public record's note
    kind: str  # a CellChange.Kind: an editor's (default), an upheld flag, an import
    expected_version: int | None  # the cell's version as the caller read it
    rationale: str | None  # a moderator's or an editor's new rationale (None: kept)
    quotes: Sequence[Quote]  # a moderator's or an editor's new evidence
    imported: Imported | None  # what an import states of the cell beside its judgement
    record_unchanged: bool  # recorded even when the judgement stays (an upheld flag)
    mark_arena: bool  # False: the caller marks the arena once (an import)


def cell_correct(
    *, cell: Cell, value: CellValue, **correction: Unpack[Correction]
) -> CellChange | None:
    """Correct a cell's judgement to ``value`` (with a rationale, quotes or what an import states);
    the record made, or None when the judgement stays (unless ``record_unchanged``). EditConflict
    when the cell moved past ``expected_version``; ValidationError per field."""
    return _correct(cell=cell, value=value, **correction)[0]


def _correct(
    *, cell: Cell, value: CellValue | None, **correction: Unpack[Correction]
) -> tuple[CellChange | None, list[Evidence]]:
    by, note = correction.get("by"), correction.get("note", "")
    kind = correction.get("kind", CellChange.Kind.ADMIN)
    expected_version, rationale = correction.get("expected_version"), correction.get("rationale")
    quotes, imported = correction.get("quotes", ()), correction.get("imported")
    record_unchanged = correction.get("record_unchanged", False)
    errors = value.errors() if value is not None else {}
    if errors:
        raise ValidationError(errors)
    added = [evidence_new(q) for q in quotes]
    with transaction.atomic():
        current = Cell.objects.select_for_update().get(pk=cell.pk)
        if expected_version is not None and current.version != expected_version:
            raise EditConflict("cell", {}, current, cell_last_change_note(cell.pk))
        at = timezone.now()
        old = CellValue.of(current)
        new = old if value is None else value
        recorded = new != old or record_unchanged
        write = judgement_writes(current, new, kind=kind, at=at) if recorded else {}
        corrected = recorded and kind == CellChange.Kind.FLAG
        write.update(rationale_writes(current, rationale, old, new, at=at, corrected=corrected))
        if imported is not None:
            write.update(imported_writes(current, imported, moved=new != old, kind=kind, at=at))
        if added:
            as_of = write.get("evidence_as_of", current.evidence_as_of)
            write.update(evidence_checked_writes(as_of, [e.checked_on for e in added], at))
        if not write and imported is None:
            return None, []
        updated = Cell.objects.filter(pk=cell.pk, version=current.version).update(
            version=F("version") + 1, **write
        )
        if not updated:
            raise EditConflict("cell", {}, current)
        change = None
        if recorded:
            change = CellChange.objects.create(
                cell_id=current.pk,
                kind=kind,
                **old.fields("old_"),
                **new.fields("new_"),
                changed_by=by if isinstance(by, User) else None,
                changed_at=at,
                note=clean_text(note).strip(),
            )
        evidence = _quotes_store(cell, imported, added)
        for name, written in write.items():
            setattr(cell, name, written)
        cell.version = current.version + 1
        if correction.get("mark_arena", True):
            arena_id = _arena_of(current)
            if recorded:
                arena_mark_stale(arena_id=arena_id)
            else:
                arena_content_changed(arena_id=arena_id)
    return change, evidence


def _quotes_store(cell: Cell, imported: Imported | None, added: list[Evidence]) -> list[Evidence]:
    if imported is not None and imported.quotes is not None:
        Evidence.objects.filter(cell_id=cell.pk).delete()
        return Evidence.objects.bulk_create(evidence_rows(cell, imported.quotes))
    if added:
        return evidence_insert(cell.pk, added)
    return []


def _arena_of(cell: Cell) -> int:
    return Story.all_objects.filter(pk=cell.story_id).values_list("arena_id", flat=True).get()


@transaction.atomic
def evidence_add(
    *, cell: Cell, source: str, quote: str, url: str = "", checked_on: date | None = None
) -> Evidence:
    """Add a quote after the cell's others, checked on ``checked_on`` (default: today)."""
    quotes = [Quote(source=source, quote=quote, url=url, checked_on=checked_on)]
    return _correct(cell=cell, value=None, quotes=quotes)[1][0]


@transaction.atomic
def evidence_update(*, evidence: Evidence, changes: Mapping[str, Any]) -> list[str]:
    """Change a quote's source, quote or url (checked anew today); the fields written."""
    current = Evidence.objects.select_for_update().get(pk=evidence.pk)
    cleaned = {n: clean_text(changes[n] or "").strip() for n in EVIDENCE_FIELDS if n in changes}
    write = {n: v for n, v in cleaned.items() if v != getattr(current, n)}
    if not write:
        return []
    for name, value in {**write, "checked_on": freshness.today()}.items():
        setattr(current, name, value)
    if errors := evidence_errors(current):
        raise ValidationError(errors)
    current.save(update_fields=[*write, "checked_on"])
    for name in (*write, "checked_on"):
        setattr(evidence, name, getattr(current, name))
    cell = Cell.objects.select_for_update().get(pk=current.cell_id)
    Cell.objects.filter(pk=cell.pk).update(
        version=F("version") + 1,
        **evidence_checked_writes(cell.evidence_as_of, [current.checked_on], timezone.now()),
    )
    arena_content_changed(arena_id=_arena_of(cell))
    return sorted(write)


def cell_edit(
    *,
    cell: Cell,
    changes: Mapping[str, Any],
    base_version: int | None,
    base: dict[str, Any] | None = None,
    by: Actor | None = None,
    note: str = "",
) -> list[str]:
    """An editor's change of the cell they read at ``base_version`` (``base``); when it moved,
    only fields nobody else touched are written, else EditConflict. The fields written."""
    with transaction.atomic():
        current = Cell.objects.select_for_update().get(pk=cell.pk)
        now = {f: getattr(current, f) for f in (*JUDGEMENT_FIELDS, "rationale")}
        now["proof"] = now["proof"] or None
        if current.version == base_version:
            base = now
        write, conflicts = merge_edit(
            base=base, current=now, changes=dict(changes), units=[JUDGEMENT_FIELDS]
        )
        if conflicts:
            raise EditConflict("cell", conflicts, current, cell_last_change_note(cell.pk))
        if write:
            _correct(
                cell=current,
                value=CellValue.from_fields({**now, **write}),
                by=by,
                note=note,
                expected_version=current.version,
                rationale=write.get("rationale"),
            )
    for name in write:
        setattr(cell, name, getattr(current, name))
    cell.version = current.version
    return sorted(write)
