"""Stale edits: the refusal (``EditConflict``) and the version-checked write of a row; a story's
or a product's change by an editor, and retiring one."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import F, Model
from django.utils import timezone

from core.edits import merge_edit
from core.models import EditableRecord, VersionedRecord
from core.signals import content_changed, placed, scores_changed
from core.text import clean_text

STALE = "This {what} was changed by someone else since you opened it."
AGAIN = "Nothing was saved; the form shows the current values: apply your change again."

Fields = dict[str, Any]


class EditConflict(Exception):
    """A stale write, refused: ``conflicts`` field → (read, now, wanted); ``current`` the row now."""

    def __init__(
        self, what: str, conflicts: dict, current: Model | None = None, detail: str = ""
    ) -> None:
        self.what, self.conflicts, self.current, self.detail = what, conflicts, current, detail
        super().__init__(self.message())

    def message(self) -> str:
        def show(v: object) -> str:
            return "—" if v in (None, "") else str(v)

        moved = "; ".join(
            f"{field} is now {show(now)} (you read {show(read)})"
            for field, (read, now, _mine) in self.conflicts.items()
            if read != now
        )
        parts = [STALE.format(what=self.what), moved and f"Meanwhile: {moved}.", self.detail, AGAIN]
        return " ".join(part for part in parts if part)


def versioned_update(
    model: type[VersionedRecord],
    *,
    obj: VersionedRecord,
    what: str,
    changes: dict[str, Any],
    base_version: int | None,
    base: dict[str, Any] | None,
) -> list[str]:
    """Write the fields the editor changed (EditConflict if one moved since) and the edit's time."""
    manager = model._default_manager  # every row, retired ones too
    current = manager.select_for_update().get(pk=obj.pk)
    now = {f: getattr(current, f) for f in changes}
    if base_version is None or current.version == base_version:
        base = now
    write, conflicts = merge_edit(base=base, current=now, changes=changes)
    if conflicts:
        raise EditConflict(what, conflicts, current)
    if not write:
        return []
    for field, value in write.items():
        setattr(current, field, clean_text(value).strip() if isinstance(value, str) else value)
    current.full_clean(validate_unique=True, validate_constraints=True)
    edited = timezone.now()
    updated = manager.filter(pk=obj.pk, version=current.version).update(
        version=F("version") + 1, edited_at=edited, **{f: getattr(current, f) for f in write}
    )
    if not updated:
        raise EditConflict(what, {}, current)
    for field in write:
        setattr(obj, field, getattr(current, field))
    obj.version, obj.edited_at = current.version + 1, edited
    return sorted(write)


def editable_update(
    row: EditableRecord,
    *,
    what: str,
    changes: dict[str, Any],
    base_version: int | None,
    base: dict[str, Any] | None,
    score_fields: Iterable[str],
) -> list[str]:
    """``versioned_update``; the arena recomputes when one of ``score_fields`` was written, else
    only its pages change."""
    written = versioned_update(
        type(row), obj=row, what=what, changes=changes, base_version=base_version, base=base
    )
    if set(written) & set(score_fields):
        scores_changed.send(None, arena_id=row.arena_id)
    elif written:
        content_changed.send(None, arena_id=row.arena_id)
    return written


def retire_set(row: EditableRecord, *, retired: bool) -> bool:
    """Retire a story or a product (hidden, kept on record), or bring it back; whether it changed."""
    model = type(row)
    now = timezone.now()
    done = model.all_objects.filter(pk=row.pk, retired_at__isnull=retired).update(
        retired_at=now if retired else None, version=F("version") + 1, edited_at=now
    )
    if done:
        if not retired:
            placed.send(type(row), row=row)
        scores_changed.send(None, arena_id=row.arena_id)
    return bool(done)
