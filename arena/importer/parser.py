"""Kept only for callers not yet switched to ``arena.importer``: import from the package instead."""

from arena.importer import ArenaRecord, PageError, read_arena

__all__ = ["ArenaRecord", "PageError", "read_arena"]
