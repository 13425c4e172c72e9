"""How a lower app announces a change a higher one acts on (``arena.apps`` and ``stories.apps``
connect them); receivers run at once, inside the sender's transaction."""

from __future__ import annotations

from django.dispatch import Signal

content_changed = Signal()  # arena_id: what its pages show changed (its content version moves)
scores_changed = Signal()  # arena_id (product_id: only its cells): scores go stale, pages change
placed = Signal()  # row: a story or a product now on its arena (new, or no longer retired)
