"""Counting related rows without joining them: a correlated subquery per count."""

from __future__ import annotations

from django.db.models import Count, IntegerField, QuerySet, Subquery
from django.db.models.functions import Coalesce


def row_count(queryset: QuerySet, *, per: str) -> Coalesce:
    """How many rows of ``queryset`` (on an ``OuterRef``) each outer row has, grouped by ``per``."""
    counted = queryset.order_by().values(per).annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)
