from __future__ import annotations

import functools

from django.apps import AppConfig
from django.conf import settings


class ArenaConfig(AppConfig):
    name = "arena"

    def ready(self) -> None:
        if any(db["ENGINE"] == "django.db.backends.sqlite3" for db in settings.DATABASES.values()):
            _share_sqlite_dates()


def _share_sqlite_dates() -> None:
    """SQLite hands back dates as text, which Python's sqlite3 module turns into ``date`` objects
    row by row (Django registers the converter). A page's cells share a few dozen evidence dates,
    so each distinct text is parsed once and the (immutable) date shared: the arena page's matrix
    parsed 318 dates per request."""
    import sqlite3

    from django.db.backends.sqlite3 import base  # noqa: F401  (registers Django's converters first)
    from django.utils.dateparse import parse_date

    @functools.lru_cache(maxsize=4096)
    def date_of(text: bytes) -> object:
        return parse_date(text.decode())

    sqlite3.register_converter("date", date_of)
