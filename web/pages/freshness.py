"""How old a cell's evidence is, as the pages say it (``stories/freshness.py`` has the rule):
the matrix's "stale" mark, and the dates of the pages' heads (``web/pages/cards.py`` says an
evidence's age)."""

from __future__ import annotations

import enum
from datetime import date, datetime
from typing import Final, NamedTuple

from stories import freshness


class _Absent(enum.Enum):
    NO_DATE = "no date"


# What a stand-in for a cell that does not read its date gives (it shows no date at all)
NO_DATE: Final = _Absent.NO_DATE
# A cell's newest evidence day as read: a day, None (no check date), or NO_DATE (not read).
AsOf = date | None | _Absent


class Now(NamedTuple):
    """Today and the stale age, read once per page part (a page shows hundreds of cells)."""

    today: date
    days: int


def freshness_now() -> Now:
    return Now(freshness.today(), freshness.stale_days())


def stale_title(as_of: date | None, today: date) -> str:
    """A stale cell's mark's hover text in the matrix."""
    if as_of is None:
        return "stale: no check date"
    return f"stale: evidence {freshness.age_text(freshness.age_days(as_of, today=today))}, {as_of:%Y-%m-%d}"


def arena_updated(arena: object) -> date | None:
    """When the arena's verdicts were last updated: the published pages' date, or the day of a
    later change of one of its verdicts (an edit, an upheld flag; ``arena_get``'s
    ``last_change``), whichever is newer."""
    return freshness.updated_on(
        getattr(arena, "updated", None), getattr(arena, "last_change", None)
    )


# The head of the arena and product pages writes its dates in three fixed forms; ``strftime``
# gives each in a fraction of what the ``date`` filter takes (registered as filters that expect
# local time, as ``date`` does: a datetime arrives in the current time zone).
def iso_day(value: date | None) -> str:
    """``2026-09-16``, as ``|date:"Y-m-d"``; ``""`` for no date."""
    return value.strftime("%Y-%m-%d") if value else ""


def iso_minute(value: datetime | None) -> str:
    """``2026-09-16 08:30``, as ``|date:"Y-m-d H:i"``."""
    return value.strftime("%Y-%m-%d %H:%M") if value else ""


def iso_second(value: datetime | None) -> str:
    """``2026-09-16T08:30:05+0000``, as ``|date:'Y-m-d\\TH:i:sO'`` (an HTML ``datetime``)."""
    return value.strftime("%Y-%m-%dT%H:%M:%S%z") if value else ""
