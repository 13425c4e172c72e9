"""Pages that changed, whose copies the HTTP cache in front drops after commit (``ops.apps``)."""

from django.dispatch import Signal

pages_changed = Signal()  # sent with arenas= and/or cells=: the ids whose pages changed
