from django.contrib import admin

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
from arena.services import arena_part_saved, arena_save, category_save, persona_save


class CategoryInline(admin.TabularInline):
    model = Category
    extra = 0
    fields = ["position", "name", "blurb"]
    ordering = ["position"]


class AdjacentInline(admin.TabularInline):
    model = AdjacentArena
    extra = 0
    fields = ["position", "name", "product_count", "leader", "shares"]


class ProductScoreInline(admin.TabularInline):
    model = ProductScore
    fk_name = "arena"
    extra = 0
    can_delete = False
    fields = [
        "rank",
        "product",
        "pa_score",
        "verified",
        "with_evidence",
        "disputed",
        "integrity",
        "confidence",
    ]
    readonly_fields = fields
    ordering = ["rank"]

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Arena)
class ArenaAdmin(admin.ModelAdmin):
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
    readonly_fields = [
        "scores_computed_at",
        "scores_stale_since",
        "change_seq",
        "computed_seq",
        "content_version",
    ]
    inlines = [CategoryInline, AdjacentInline, ProductScoreInline]
    actions = ["recompute"]

    def save_model(self, request, obj, form, change):
        arena_save(arena=obj, changed=form.changed_data)

    def save_formset(self, request, form, formset, change):
        if formset.model is not Category:
            super().save_formset(request, form, formset, change)
            if formset.has_changed():
                arena_part_saved(arena_id=form.instance.pk)
            return
        saved = formset.save(commit=False)  # sets changed_objects and deleted_objects
        changed = {id(obj): fields for obj, fields in formset.changed_objects}
        for category in saved:
            category_save(category=category, changed=changed.get(id(category), ()))
        for category in formset.deleted_objects:  # the admin refuses when stories still use it
            category.delete()
            arena_mark_stale(arena_id=form.instance.pk)
        formset.save_m2m()

    @admin.action(description="Recompute scores now (through the task queue)")
    def recompute(self, request, queryset):
        for arena in queryset:
            arena_mark_stale(arena_id=arena.pk)
        self.message_user(request, f"Recomputation scheduled for {queryset.count()} arena(s).")


class SubGroupInline(admin.TabularInline):
    model = SubGroup
    extra = 0
    fields = ["position", "name"]


class ArenaPartAdmin(admin.ModelAdmin):
    """The admin of a part of an arena's pages (a category, an adjacent arena): deleting one, alone
    or as a selection, changes its arena's pages (``arena_changed``)."""

    def arena_changed(self, arena_id: int) -> None:
        arena_part_saved(arena_id=arena_id)

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        self.arena_changed(obj.arena_id)

    def delete_queryset(self, request, queryset):
        arena_ids = set(queryset.values_list("arena_id", flat=True))
        super().delete_queryset(request, queryset)
        for arena_id in arena_ids:
            self.arena_changed(arena_id)


@admin.register(Category)
class CategoryAdmin(ArenaPartAdmin):
    list_display = ["name", "arena", "position", "blurb"]
    list_filter = ["arena"]
    search_fields = ["name", "blurb"]
    ordering = ["arena", "position"]
    inlines = [SubGroupInline]

    def get_readonly_fields(self, request, obj=None):
        # a category stays in its arena: its stories belong to that arena
        return ["arena"] if obj else []

    def save_model(self, request, obj, form, change):
        category_save(category=obj, changed=form.changed_data)

    def save_formset(self, request, form, formset, change):  # its sub-groups
        super().save_formset(request, form, formset, change)
        if formset.has_changed():
            arena_part_saved(arena_id=form.instance.arena_id)

    def arena_changed(self, arena_id: int) -> None:  # scores are kept per category name
        arena_mark_stale(arena_id=arena_id)


@admin.register(Persona)
class PersonaAdmin(admin.ModelAdmin):
    list_display = ["slug", "label"]
    search_fields = ["slug", "label"]

    def save_model(self, request, obj, form, change):
        persona_save(persona=obj, changed=form.changed_data)


@admin.register(AdjacentArena)
class AdjacentArenaAdmin(ArenaPartAdmin):
    list_display = ["name", "arena", "product_count", "leader", "shares", "position"]
    list_filter = ["arena"]

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        self.arena_changed(obj.arena_id)


@admin.register(PersonaResult)
class PersonaResultAdmin(admin.ModelAdmin):
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

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
