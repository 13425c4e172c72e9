"""Writes every editable record shares (a story, a product): an editor's versioned change and
retiring. What they mean for the arena is announced (``core.signals``): the arena recomputes or
moves its pages' version; a record back on its arena gets its cells from the stories app."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import F
from django.utils import timezone

from core.conflicts import versioned_update
from core.models import EditableRecord
from core.signals import arena_content_changed, arena_mark_stale, record_placed


def editable_update(
    row: EditableRecord,
    *,
    what: str,
    changes: dict[str, Any],
    base_version: int | None,
    base: dict[str, Any] | None,
    score_fields: Iterable[str],
) -> list[str]:
    """An editor's change of a story or a product (``versioned_update``), marked as theirs: the
    arena recomputes when a field that can move a score (``score_fields``) was written, its pages
    change when any other was. Returns the fields written."""
    written = versioned_update(
        type(row), obj=row, what=what, changes=changes, base_version=base_version, base=base
    )
    if written:
        type(row).all_objects.filter(pk=row.pk).update(edited_at=timezone.now())
    if set(written) & set(score_fields):
        arena_mark_stale(arena_id=row.arena_id)
    elif written:
        arena_content_changed(arena_id=row.arena_id)
    return written


def retire_set(row: EditableRecord, *, retired: bool) -> bool:
    """Retire a story or a product (hidden from pages and scores; its cells, flags, decisions and
    history stay), or bring it back; whether it changed. Back on the pages, every pair it makes has
    a cell."""
    model = type(row)
    now = timezone.now()
    done = model.all_objects.filter(pk=row.pk, retired_at__isnull=retired).update(
        retired_at=now if retired else None, version=F("version") + 1, edited_at=now
    )
    if done:
        if not retired:
            record_placed(row)
        arena_mark_stale(arena_id=row.arena_id)
    return bool(done)
