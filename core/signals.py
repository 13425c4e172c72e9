"""How a lower app announces a change a higher one acts on (``arena.apps`` and ``stories.apps``
connect them); receivers run at once, inside the sender's transaction."""

from __future__ import annotations

from django.dispatch import Signal

# arena_id: something the arena's pages show changed (its content version moves)
content_changed = Signal()
# arena_id: something a score rests on changed (the scores go stale, and the pages change)
scores_changed = Signal()
# row: a story or a product now on its arena (new, or no longer retired)
placed = Signal()
