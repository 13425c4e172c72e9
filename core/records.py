"""Writes a story and a product share: an editor's versioned change, and retiring."""

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
    """``versioned_update`` marked as an editor's; the arena recomputes when one of
    ``score_fields`` was written, else only its pages change."""
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
    """Retire a story or a product (hidden, kept on record), or bring it back; whether it changed."""
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
