"""Evidence freshness: how old a cell's newest evidence is, and when it counts as stale.

The rule, in one place (the pages, the API, the admin and the selectors use these):

- Each evidence quote has a ``checked_on`` date: for imported evidence the pages' "Evidence as
  of" date; for evidence added or edited in the admin the date of the edit; for a flag's source
  accepted as evidence the date of the decision.
- A cell's ``evidence_as_of`` is the newest of its evidence's ``checked_on`` dates and of the
  dates its verdict was last judged: an import (the pages' "Evidence as of" date: every verdict of
  the pages is stated as of then), an upheld flag or an admin edit of the verdict, proof or
  quality (the date of the decision). It is stored on the cell and kept by the services that write
  evidence and cells; it never moves back.
- A cell is **stale** when its verdict applies (``n/a`` never is) and its evidence is older than
  ``settings.EVIDENCE_STALE_DAYS`` days (default 180), or it has no date at all. Its age is counted
  in whole days from ``evidence_as_of`` to today (the site's time zone).

Plain functions of dates (``today`` and ``stale_days`` read the clock and the setting); ``stale_q``
is the same rule as a database filter.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from stories.values import Verdict


def today() -> date:
    """Today in the site's time zone: what staleness is counted from."""
    return timezone.localdate()


def stale_days() -> int:
    """``settings.EVIDENCE_STALE_DAYS``: evidence older than this many days is stale."""
    return settings.EVIDENCE_STALE_DAYS


def stale_before(*, today: date, days: int) -> date:
    """Evidence checked before this date is stale (older than ``days`` days on ``today``)."""
    return today - timedelta(days=days)


def age_days(as_of: date | None, *, today: date) -> int | None:
    """Whole days from ``as_of`` to ``today`` (0 for today; never negative); None: no date."""
    if as_of is None:
        return None
    return max(0, (today - as_of).days)


def is_stale(verdict: str, as_of: date | None, *, today: date, days: int) -> bool:
    """Whether a cell with this verdict and ``evidence_as_of`` is stale on ``today``."""
    if verdict == Verdict.NA:
        return False
    return as_of is None or as_of < stale_before(today=today, days=days)


def stale_q(*, today: date, days: int, prefix: str = "") -> Q:
    """``is_stale`` as a filter on cells (``prefix``: the path to the cell, ``"cells__"``)."""
    return ~Q(**{f"{prefix}verdict": Verdict.NA}) & (
        Q(**{f"{prefix}evidence_as_of__isnull": True})
        | Q(**{f"{prefix}evidence_as_of__lt": stale_before(today=today, days=days)})
    )


def newest(*dates: date | None) -> date | None:
    """The newest of the dates given (None ones ignored): a cell's ``evidence_as_of`` from its
    evidence's ``checked_on`` dates and the dates its verdict was judged."""
    known = [d for d in dates if d is not None]
    return max(known) if known else None


def age_text(days: int | None) -> str:
    """``checked today``, ``checked yesterday``, ``checked 75 days ago``; ``no check date`` without one."""
    if days is None:
        return "no check date"
    if days == 0:
        return "checked today"
    if days == 1:
        return "checked yesterday"
    return f"checked {days} days ago"


def updated_on(published: date | None, last_change: datetime | None) -> date | None:
    """When an arena's verdicts were last updated: the published pages' date, or the day (in the
    site's time zone) of a later change of one of its verdicts, whichever is newer."""
    if last_change is None:
        return published
    if timezone.is_naive(last_change):  # (a raw query on SQLite reads a stored UTC moment so)
        last_change = last_change.replace(tzinfo=UTC)
    return newest(published, timezone.localtime(last_change).date())
