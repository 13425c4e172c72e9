"""Counting related rows without joining them: a correlated subquery per count."""

from __future__ import annotations

from django.db.models import Count, IntegerField, QuerySet, Subquery
from django.db.models.functions import Coalesce


def row_count(queryset: QuerySet, *, per: str) -> Coalesce:
    """How many rows of ``queryset`` (filtered on an ``OuterRef``) belong to each outer row, as
    one subquery grouped by the ``per`` field: several counts side by side in one query, none of
    them multiplied by another's join, and each taking its rows from the manager or queryset method
    that says which rows the pages see."""
    counted = queryset.order_by().values(per).annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)
