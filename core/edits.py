"""Merging a possibly stale edit: which fields an editor may write, and which conflict with a change
made since they opened the form. Plain Python (the services apply the outcome under a row lock)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class EditOutcome:
    """What a possibly stale edit may write: ``write`` (field → new value), or ``conflicts`` (field →
    (what the editor read, what it is now, what the editor wants)) when someone else changed the same
    thing meanwhile."""

    write: dict
    conflicts: dict


def merge_edit(
    *,
    base: dict | None,
    current: dict,
    changes: dict,
    units: Iterable[Iterable[str]] = (),
) -> EditOutcome:
    """Merge a stale edit into ``current``. ``base`` holds the values the editor read (None when
    unknown: then anything may have moved); ``changes`` the fields the editor changed. A field the
    editor changed conflicts when it also moved meanwhile; the fields of one of ``units`` conflict
    together (a cell's verdict, proof and quality are one judgement). Fields the editor did not
    change are never written, so nobody's work is silently put back."""
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
    return EditOutcome(write={} if conflicts else changes, conflicts=conflicts)


def edited_since_import(edited_at: datetime | None, imported_at: datetime | None) -> bool:
    """Whether a row carries an editor's or a moderator's work that no import has taken up yet: it
    was edited after an import last wrote it (both are the server's own times, never a date a file
    claims for itself). A re-import keeps such a row as it is and reports it."""
    return edited_at is not None and (imported_at is None or edited_at > imported_at)
