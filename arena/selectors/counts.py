"""Counting related rows without joining them: a correlated subquery per count."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.db.models import CharField, Count, IntegerField, Max, Min, Q, QuerySet, Subquery, Value
from django.db.models.functions import Cast, Coalesce, Concat

from stories.values import Verdict


def row_count(queryset: QuerySet, *, per: str) -> Coalesce:
    """How many rows of ``queryset`` (filtered on an ``OuterRef``) belong to each outer row, as
    one subquery grouped by the ``per`` field: several counts side by side in one query, none of
    them multiplied by another's join, and each taking its rows from the manager or queryset method
    that says which rows the pages see."""
    counted = queryset.order_by().values(per).annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)


def summary_count(cells: QuerySet, *, per: str) -> Subquery:
    """The judged ``cells`` (filtered on an ``OuterRef``) of each outer row counted in one scan
    rather than four: ``"<cells>|<n/a cells>|<oldest day>|<newest day>"`` (the days of evidence
    of the cells not n/a, ISO, empty for none), which ``summary_read`` sets on the row. (Text
    rather than a JSON object: SQLite's JSON functions cost a query of their own, a probe of the
    database, the first time a process compiles one.)"""
    judged = ~Q(verdict=Verdict.NA)

    def text(value: Any) -> Coalesce:
        return Coalesce(Cast(value, CharField()), Value(""))

    summary = Concat(
        text(Count("pk")),
        Value("|"),
        text(Count("pk", filter=Q(verdict=Verdict.NA))),
        Value("|"),
        text(Min("evidence_as_of", filter=judged)),
        Value("|"),
        text(Max("evidence_as_of", filter=judged)),
        output_field=CharField(),
    )
    counted = cells.order_by().values(per).annotate(summary=summary).values("summary")
    return Subquery(counted, output_field=CharField())


def summary_read(row: Any, name: str = "judged_summary") -> None:
    """Sets the ``summary_count`` read as ``name`` on ``row`` as ``cell_count``, ``na_count``,
    ``evidence_oldest`` and ``evidence_newest`` (no cells: 0, 0, None, None)."""
    summary = row.__dict__.pop(name, None) or "0|0||"
    cells, na, oldest, newest = summary.split("|")
    row.cell_count = int(cells)
    row.na_count = int(na)
    row.evidence_oldest = date.fromisoformat(oldest[:10]) if oldest else None
    row.evidence_newest = date.fromisoformat(newest[:10]) if newest else None
