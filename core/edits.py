"""Merging a possibly stale edit, in plain Python (the services apply it under a row lock)."""

from __future__ import annotations

from collections.abc import Iterable


def merge_edit(
    *, base: dict | None, current: dict, changes: dict, units: Iterable[Iterable[str]] = ()
) -> tuple[dict, dict]:
    """(field → value to write, field → (read, now, wanted) in conflict): a changed field conflicts
    when it also moved since ``base`` (None: anything may have), ``units``' fields together."""
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
