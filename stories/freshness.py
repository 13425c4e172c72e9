"""Evidence freshness (docs/scoring.md): ``evidence_as_of`` is the newest of a cell's quotes'
``checked_on`` and judging dates, never moving back; stale past EVIDENCE_STALE_DAYS or unknown."""

from __future__ import annotations

from datetime import date, timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from stories.values import Verdict


def today() -> date:
    return timezone.localdate()


def stale_days() -> int:
    return settings.EVIDENCE_STALE_DAYS


def stale_before(*, today: date, days: int) -> date:
    return today - timedelta(days=days)


def is_stale(verdict: str, as_of: date | None, *, today: date, days: int) -> bool:
    if verdict == Verdict.NA:
        return False
    return as_of is None or as_of < stale_before(today=today, days=days)


def stale_q(*, today: date, days: int) -> Q:
    """``is_stale`` as a filter on cells."""
    cut = stale_before(today=today, days=days)
    return ~Q(verdict=Verdict.NA) & (Q(evidence_as_of__isnull=True) | Q(evidence_as_of__lt=cut))


def newest(*dates: date | None) -> date | None:
    """The newest of the dates given, None ones ignored."""
    return max((d for d in dates if d is not None), default=None)


def age_text(as_of: date | None, *, today: date) -> str:
    """``checked 75 days ago`` (never in the future), ``no check date``."""
    if as_of is None:
        return "no check date"
    days = max(0, (today - as_of).days)
    if days < 2:
        return "checked today" if days == 0 else "checked yesterday"
    return f"checked {days} days ago"
