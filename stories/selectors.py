"""Reads of the stories app that services and forms share."""

from __future__ import annotations

from stories.models import CellChange


def cell_last_change_note(cell_id: int) -> str:
    """The cell's last recorded change in one line, for a refused stale edit's message."""
    last = CellChange.objects.filter(cell_id=cell_id).select_related("changed_by").first()
    if last is None:
        return ""
    who = f" by {last.changed_by.get_username()}" if last.changed_by else ""
    note = f" (“{last.note}”)" if last.note else ""
    return (
        f"Last change: {last.get_kind_display()}{who} on {last.changed_at:%Y-%m-%d %H:%M} UTC, "
        f"{last.old_value.label()} → {last.new_value.label()}{note}."
    )
