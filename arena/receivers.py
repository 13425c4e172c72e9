"""The arena's answers to what stories and products announce (``core.signals``)."""

from typing import Any

from arena.recompute import arena_content_changed, arena_mark_stale


def content_changed(sender: Any, *, arena_id: int, **kwargs: Any) -> None:
    arena_content_changed(arena_id=arena_id)


def scores_changed(sender: Any, *, arena_id: int, **kwargs: Any) -> None:
    arena_mark_stale(arena_id=arena_id)
