"""Django's SQLite backend, with what it repeats on every statement and every row done once.

- Django's cursor rewrites each statement's ``%s`` placeholders into SQLite's ``?`` with a regular
  expression, on every call: tens of microseconds for the long statements the pages run (a dozen
  per uncached arena page), and the same text each time. Each statement is converted once.
- Python's sqlite3 module turns each date column's text into a ``date`` row by row (Django registers
  the converter). A page's cells share a few dozen evidence dates, so each distinct text is parsed
  once and the (immutable) date shared: the arena page's matrix parsed 318 dates per request.

``config.settings`` names this package as the engine whenever ``DATABASE_URL`` is SQLite.
"""

from __future__ import annotations

import functools
import sqlite3
from datetime import date

from django.db.backends.sqlite3 import base
from django.utils.dateparse import parse_date

# Statements longer than this (a bulk insert's thousands of placeholders) are converted each time,
# so the cache's memory stays bounded however many of them run.
_CACHED_UP_TO = 20_000


@functools.lru_cache(maxsize=1024)
def _qmark_cached(query: str) -> str:
    return base.FORMAT_QMARK_REGEX.sub("?", query).replace("%%", "%")


def qmark(query: str) -> str:
    """``query`` with Django's ``format`` placeholders as SQLite's ``qmark`` ones (``%%`` → ``%``)."""
    if len(query) > _CACHED_UP_TO:
        return _qmark_cached.__wrapped__(query)
    return _qmark_cached(query)


class SQLiteCursorWrapper(base.SQLiteCursorWrapper):
    def convert_query(self, query: str, *, param_names: list[str] | None = None) -> str:
        if param_names is None:
            return qmark(query)
        return super().convert_query(query, param_names=param_names)


class DatabaseWrapper(base.DatabaseWrapper):
    def create_cursor(self, name: str | None = None) -> SQLiteCursorWrapper:
        return self.connection.cursor(factory=SQLiteCursorWrapper)


@functools.lru_cache(maxsize=4096)
def date_of(text: bytes) -> date | None:
    return parse_date(text.decode())


# (after Django's own converters, which importing its backend registered)
sqlite3.register_converter("date", date_of)
