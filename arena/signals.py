"""What the arena app announces for the operations around it: pages that changed, whose copies the
HTTP cache in front must drop once the transaction commits (``ops.apps`` connects the purge)."""

from __future__ import annotations

from collections.abc import Iterable

from django.dispatch import Signal

# arenas, cells: ids whose pages changed
pages_changed = Signal()


def purge_after_commit(*, arenas: Iterable[int] = (), cells: Iterable[int] = ()) -> None:
    """Announce that these arenas' and cells' pages changed (the purge goes after commit)."""
    pages_changed.send(sender=None, arenas=list(arenas), cells=list(cells))
