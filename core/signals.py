"""How a lower app announces a change a higher one acts on (``arena.apps`` and ``stories.apps``
connect them); receivers run at once, inside the sender's transaction."""

from __future__ import annotations

from typing import Any

from django.dispatch import Signal

# arena_id: something the arena's pages show changed (its content version moves)
content_changed = Signal()
# arena_id: something a score rests on changed (the scores go stale, and the pages change)
scores_changed = Signal()
# row: a story or a product now on its arena (new, or no longer retired)
placed = Signal()


def arena_content_changed(*, arena_id: int) -> None:
    content_changed.send(sender=None, arena_id=arena_id)


def arena_mark_stale(*, arena_id: int) -> None:
    scores_changed.send(sender=None, arena_id=arena_id)


def record_placed(row: Any) -> None:
    placed.send(sender=type(row), row=row)
