"""How old a cell's evidence is, as the pages say it (``stories/freshness.py`` has the rule):
``checked 75 days ago (2026-09-16)`` and the "stale" badge or mark."""

from __future__ import annotations

import enum
from datetime import date, datetime
from typing import Final, NamedTuple

from django.utils.safestring import SafeString, mark_safe

from stories import freshness
from web.pages.shapes import Dated


class _Absent(enum.Enum):
    NO_DATE = "no date"


# What a stand-in for a cell that does not read its date gives (it shows no date at all)
NO_DATE: Final = _Absent.NO_DATE
# A cell's newest evidence day as read: a day, None (no check date), or NO_DATE (not read).
AsOf = date | None | _Absent

_STALE_BADGE = '<span class="stale-badge" title="evidence older than {days} days">stale</span>'


class Now(NamedTuple):
    """Today and the stale age, read once per page part (a page shows hundreds of cells)."""

    today: date
    days: int


def freshness_now() -> Now:
    return Now(freshness.today(), freshness.stale_days())


def checked_html(verdict: str, as_of: date | None, now: Now) -> str:
    """``checked 75 days ago (<time>2026-09-16</time>)`` and, when the cell is stale, its
    "stale" badge (text, not colour only); ``no check date`` without one."""
    today, days = now
    age = freshness.age_days(as_of, today=today)
    if as_of is None:
        text = freshness.age_text(None)
    else:
        text = (
            f'{freshness.age_text(age)} (<time datetime="{as_of:%Y-%m-%d}">{as_of:%Y-%m-%d}</time>)'
        )
    stale = freshness.is_stale(verdict, as_of, today=today, days=days)
    return f"{text}{' ' + _STALE_BADGE.format(days=int(days)) if stale else ''}"


def stale_title(as_of: date | None, today: date) -> str:
    """A stale cell's mark's hover text in the matrix."""
    if as_of is None:
        return "stale: no check date"
    return f"stale: evidence {freshness.age_text(freshness.age_days(as_of, today=today))}, {as_of:%Y-%m-%d}"


def evidence_checked(cell: Dated) -> SafeString:
    """How old a cell's newest evidence is, ``checked 75 days ago (2026-09-16)``, with a "stale"
    badge when it is older than ``EVIDENCE_STALE_DAYS`` (the cell page, cards)."""
    return mark_safe(checked_html(cell.verdict, cell.evidence_as_of, freshness_now()))


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
