"""An arena's structure in the admin: versioned, saved by ``arena.services``; scores read-only."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Model, QuerySet
from django.http import HttpRequest

from arena.models import (
    AdjacentArena,
    Arena,
    Category,
    Persona,
    PersonaResult,
    ProductScore,
    SubGroup,
)
from arena.recompute import arena_mark_stale
from arena.services import EDITABLE, STAYS_IN, structure_delete, structure_save, what
from core.admin_base import ReadOnly, RefusesStaleSaves, edit_refused
from core.conflicts import EditConflict
from core.forms import VersionedForm


class StructureForm(VersionedForm):
    """A row of the structure; the admins leave out all but its editable fields."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.what = what(type(self.instance))


def _save(form: VersionedForm, obj: Any) -> None:
    structure_save(
        obj, changed=form.changed_data, base_version=form.base_version(), base=form.base()
    )


class StructureAdmin(RefusesStaleSaves):
    """Saves and deletes through the services; a stale save is refused, nothing of it kept."""

    form = StructureForm

    def get_readonly_fields(self, request: HttpRequest, obj: Model | None = None) -> list[str]:
        """All but the editable fields (and, when added, where the row stays)."""
        editable = EDITABLE[self.model] + (() if obj else (STAYS_IN.get(self.model, ""),))
        fields = self.model._meta.concrete_fields
        return [f.name for f in fields if not f.primary_key and f.name not in editable]

    def save_model(self, request: HttpRequest, obj: Model, form: Any, change: bool) -> None:
        try:
            _save(form, obj)
        except (EditConflict, ValidationError) as exc:
            self.refuse(request, exc)

    def delete_model(self, request: HttpRequest, obj: Model) -> None:
        self.delete_queryset(request, [obj])

    def delete_queryset(self, request: HttpRequest, queryset: Iterable[Any]) -> None:
        """All or nothing; a row in use is refused with a message and a 403, never a 500."""
        try:
            with transaction.atomic():
                for obj in queryset:
                    structure_delete(obj)
        except (EditConflict, ValidationError) as exc:
            text = " ".join(getattr(exc, "messages", None) or [str(exc)])
            self.message_user(request, f"Nothing was deleted: {text}", messages.ERROR)
            raise PermissionDenied(f"Nothing was deleted: {text}") from exc

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        if formset.model not in EDITABLE:
            return super().save_formset(request, form, formset, change)
        saved = formset.save(commit=False)  # sets the fk of new rows, and what changed
        forms = {id(f.instance): f for f in formset.forms}
        if edit_refused(request):
            saved, formset.deleted_objects = [], []
        try:
            with transaction.atomic():
                # deletes first, as Django's formsets do: a new row may take a deleted one's place
                for obj in formset.deleted_objects:
                    f = forms[id(obj)]
                    structure_delete(obj, base_version=f.base_version(), base=f.base())
                for obj in saved:
                    _save(forms[id(obj)], obj)
        except (EditConflict, ValidationError) as exc:
            self.refuse(request, exc)
            formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []
        formset.save_m2m = lambda: None


class StructureInline(admin.TabularInline):
    form = StructureForm
    extra = 0


class CategoryInline(StructureInline):
    model = Category
    fields = ["position", "name", "blurb", "read_version"]


class AdjacentInline(StructureInline):
    model = AdjacentArena
    fields = ["position", "name", "product_count", "leader", "shares", "read_version"]


class ProductScoreInline(ReadOnly, admin.TabularInline):
    model = ProductScore
    extra = 0
    fields = readonly_fields = (
        "rank",
        "product",
        "pa_score",
        "verified",
        "with_evidence",
        "disputed",
        "integrity",
        "confidence",
    )


@admin.register(Arena)
class ArenaAdmin(StructureAdmin):
    list_display = [
        "name",
        "slug",
        "updated",
        "evidence_as_of",
        "scores_computed_at",
        "scores_stale_since",
    ]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [CategoryInline, AdjacentInline, ProductScoreInline]
    actions = ["recompute"]

    @admin.action(description="Recompute scores now (through the task queue)")
    def recompute(self, request: HttpRequest, queryset: QuerySet[Arena]) -> None:
        for arena in queryset:
            arena_mark_stale(arena_id=arena.pk)
        self.message_user(request, f"Recomputation scheduled for {queryset.count()} arena(s).")


class SubGroupInline(StructureInline):
    model = SubGroup
    fields = ["position", "name", "read_version"]


@admin.register(Category)
class CategoryAdmin(StructureAdmin):
    list_display = ["name", "arena", "position", "blurb"]
    list_filter = ["arena"]
    search_fields = ["name", "blurb"]
    inlines = [SubGroupInline]


@admin.register(Persona)
class PersonaAdmin(StructureAdmin):
    list_display = ["slug", "label"]
    search_fields = ["slug", "label"]


@admin.register(AdjacentArena)
class AdjacentArenaAdmin(StructureAdmin):
    list_display = ["name", "arena", "product_count", "leader", "shares", "position"]
    list_filter = ["arena"]
    list_select_related = ["arena"]


@admin.register(PersonaResult)
class PersonaResultAdmin(ReadOnly, admin.ModelAdmin):
    list_display = [
        "arena",
        "persona",
        "story_count",
        "winner",
        "winner_score",
        "runner_up",
        "runner_up_score",
    ]
    list_filter = ["arena"]
    list_select_related = ["arena", "persona", "winner", "runner_up"]


@admin.register(ProductScore)
class ProductScoreAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["rank", "product", "arena", "pa_score", "integrity", "confidence"]
    list_filter = ["arena"]
    list_select_related = ["arena", "product"]
