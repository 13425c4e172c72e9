"""Pages that changed, whose copies the HTTP cache in front drops after commit (``ops.apps``)."""

from collections.abc import Iterable

from django.dispatch import Signal

pages_changed = Signal()  # arenas=, cells=: the ids whose pages changed


def purge_after_commit(*, arenas: Iterable[int] = (), cells: Iterable[int] = ()) -> None:
    pages_changed.send(sender=None, arenas=list(arenas), cells=list(cells))
