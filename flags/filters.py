"""The review queue's list filters and its order (oldest first, or largest impact first)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any, ClassVar

from django.contrib import admin
from django.contrib.admin.views.main import ChangeList
from django.db.models import Field, QuerySet
from django.http import HttpRequest
from django.utils import timezone

from arena.models import Category
from flags.models import Status
from products.models import Product

ALL = "all"
BY_IMPACT = "impact"
TEMPLATE = "admin/flags/reviewitem/filter.html"  # a dropdown in the bar above the list


class ChoicesFilter(admin.SimpleListFilter):
    template = TEMPLATE
    options: ClassVar[list[tuple[str, str]]] = []
    default: ClassVar[str] = ""  # set: no "All" choice, and this one is chosen when none is

    def lookups(
        self, request: HttpRequest, model_admin: admin.ModelAdmin[Any]
    ) -> list[tuple[str, str]]:
        return self.options

    def choices(self, changelist: ChangeList) -> Iterator[Any]:
        if not self.default:
            yield from super().choices(changelist)
            return
        value = self.value() or self.default
        for lookup, title in self.lookup_choices:
            yield {
                "selected": value == lookup,
                "query_string": changelist.get_query_string({str(self.parameter_name): lookup}),
                "display": title,
            }


class StatusFilter(ChoicesFilter):
    title = "status"
    parameter_name = "status"
    options = [*Status.choices, (ALL, "All")]
    default = Status.PENDING

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value() or Status.PENDING
        return queryset if value == ALL else queryset.filter(status=value)


class SortFilter(ChoicesFilter):
    """The queue's order: ``ReviewChangeList`` applies it."""

    title = "sort order"
    parameter_name = "sort"
    options = [("oldest", "Oldest first"), (BY_IMPACT, "Largest impact of upholding first")]
    default = "oldest"

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset


class AgeFilter(ChoicesFilter):
    title = "age"
    parameter_name = "age"
    options = [("1", "Under a day"), ("7", "1–7 days"), ("old", "Over a week")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        now = timezone.now()
        day, week = now - timedelta(days=1), now - timedelta(days=7)
        ranges = {
            "1": {"created_at__gte": day},
            "7": {"created_at__lt": day, "created_at__gte": week},
            "old": {"created_at__lt": week},
        }
        return queryset.filter(**ranges.get(self.value() or "", {}))


class RelatedFilter(admin.RelatedFieldListFilter):
    template = TEMPLATE


class FieldChoicesFilter(admin.ChoicesFieldListFilter):
    template = TEMPLATE


class ArenaScopedFilter(RelatedFilter):
    """The chosen arena's choices; else each named with its arena (names repeat across arenas)."""

    def field_choices(
        self, field: Field[Any, Any], request: HttpRequest, model_admin: admin.ModelAdmin[Any]
    ) -> list[tuple[Any, Any]]:
        model: type[Product] | type[Category] = field.related_model  # type: ignore[assignment]
        rows: QuerySet[Product] | QuerySet[Category] = model.objects.select_related(
            "arena"
        ).order_by("arena__name", "position")
        arena = request.GET.get("cell__story__arena__id__exact", "")  # the arena filter's
        if arena.isdigit() and len(arena) < 19:
            rows = rows.filter(arena_id=arena)
        listed: list[Product | Category] = [*rows]
        named = len({row.arena_id for row in listed}) > 1
        return [(row.pk, f"{row.arena.name} · {row.name}" if named else row.name) for row in listed]
