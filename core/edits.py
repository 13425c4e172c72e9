"""Merging a possibly stale edit, in plain Python (the services apply it under a row lock)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime


def merge_edit(
    *, base: dict | None, current: dict, changes: dict, units: Iterable[Iterable[str]] = ()
) -> tuple[dict, dict]:
    """(field → value to write, field → (read, now, wanted) in conflict): a field the editor
    changed conflicts when it also moved since ``base`` (None: anything may have), the fields of
    one of ``units`` together; fields not changed are never written."""
    changes = {f: v for f, v in changes.items() if current.get(f) != v}
    if base is None:
        moved = set(current)
    else:
        moved = {f for f in current if f in base and base[f] != current[f]}
    touched = set(changes)
    for unit in units:
        if touched & set(unit) and moved & set(unit):
            touched |= set(unit)
            moved |= set(unit)
    conflicts = {
        f: (None if base is None else base.get(f), current.get(f), changes.get(f, current.get(f)))
        for f in current
        if f in touched & moved
    }
    return ({} if conflicts else changes), conflicts


def edited_since_import(edited_at: datetime | None, imported_at: datetime | None) -> bool:
    """Edited after an import last wrote it (server times): a re-import keeps it and reports it."""
    return edited_at is not None and (imported_at is None or edited_at > imported_at)
