"""The review queue's list filters: status (pending by default), reason and age."""

from __future__ import annotations

from datetime import timedelta

from django.contrib import admin
from django.utils import timezone

from flags.models import Reason, Status

ALL = "all"


class StatusFilter(admin.SimpleListFilter):
    """The queue opens on pending items."""

    title = "status"
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return [*Status.choices, (ALL, "All")]

    def choices(self, changelist):
        value = self.value() or Status.PENDING
        for lookup, title in self.lookup_choices:
            yield {
                "selected": value == lookup,
                "query_string": changelist.get_query_string({self.parameter_name: lookup}),
                "display": title,
            }

    def queryset(self, request, queryset):
        value = self.value() or Status.PENDING
        return queryset if value == ALL else queryset.filter(status=value)


class AgeFilter(admin.SimpleListFilter):
    title = "age"
    parameter_name = "age"

    def lookups(self, request, model_admin):
        return [("1", "Under a day"), ("7", "1–7 days"), ("old", "Over a week")]

    def queryset(self, request, queryset):
        now = timezone.now()
        day, week = now - timedelta(days=1), now - timedelta(days=7)
        if self.value() == "1":
            return queryset.filter(created_at__gte=day)
        if self.value() == "7":
            return queryset.filter(created_at__lt=day, created_at__gte=week)
        if self.value() == "old":
            return queryset.filter(created_at__lt=week)
        return queryset


class ReasonFilter(admin.SimpleListFilter):
    title = "reason"
    parameter_name = "reason"

    def lookups(self, request, model_admin):
        return Reason.choices

    def queryset(self, request, queryset):
        if self.value():
            return queryset.filter(flags__reason=self.value()).distinct()
        return queryset
