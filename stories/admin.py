from django.contrib import admin
from django.db import transaction

from arena.admin_mixins import MarksArenaStaleOnDelete
from stories.forms import CellForm
from stories.models import Cell, CellChange, Evidence, Story
from stories.services import cell_set_verdict, cell_update_detail, story_add, story_update


def save_cell_form(form, user) -> None:
    """Route an admin edit of a cell through the services (validation, record, recomputation)."""
    cell = form.instance
    data = form.cleaned_data
    cell_set_verdict(
        cell=Cell.objects.get(pk=cell.pk),
        verdict=data["verdict"],
        proof=data.get("proof") or None,
        quality=data.get("quality"),
        by=user,
        note=f"Edited in the admin by {user.get_username()}",
    )
    cell_update_detail(cell=Cell.objects.get(pk=cell.pk), rationale=data.get("rationale", ""))


class EvidenceInline(admin.TabularInline):
    model = Evidence
    extra = 0
    fields = ["position", "source", "quote"]


class CellChangeInline(admin.TabularInline):
    model = CellChange
    extra = 0
    can_delete = False
    fields = [
        "changed_at",
        "kind",
        "old_verdict",
        "old_quality",
        "new_verdict",
        "new_quality",
        "changed_by",
        "note",
    ]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Cell)
class CellAdmin(admin.ModelAdmin):
    form = CellForm
    list_display = [
        "__str__",
        "story_text",
        "product",
        "verdict",
        "proof",
        "quality",
        "detail_published",
    ]
    list_filter = [
        "story__arena",
        "product",
        "verdict",
        "proof",
        "detail_published",
        "story__category",
    ]
    search_fields = ["story__text", "product__name", "rationale"]
    list_select_related = ["story", "product"]
    ordering = ["story__arena", "story__position", "product__position"]
    inlines = [EvidenceInline, CellChangeInline]
    readonly_fields = ["story", "product", "version"]

    @admin.display(description="story", ordering="story__position")
    def story_text(self, obj):
        return obj.story.text[:80]

    def has_add_permission(self, request):
        return False  # cells exist for every product × story; they are created with them

    def save_model(self, request, obj, form, change):
        with transaction.atomic():
            save_cell_form(form, request.user)


class CellInline(admin.TabularInline):
    model = Cell
    form = CellForm
    extra = 0
    can_delete = False
    fields = ["product", "verdict", "proof", "quality", "rationale"]
    readonly_fields = ["product"]
    ordering = ["product__position"]

    def has_add_permission(self, request, obj=None):
        return False

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("product")


@admin.register(Story)
class StoryAdmin(MarksArenaStaleOnDelete, admin.ModelAdmin):
    list_display = [
        "position",
        "text",
        "arena",
        "category",
        "subgroup",
        "persona",
        "weight",
        "weight_published",
    ]
    list_display_links = ["text"]
    list_filter = ["arena", "category", "persona", "weight", "weight_published"]
    search_fields = ["text"]
    list_select_related = ["arena", "category", "subgroup", "persona"]
    ordering = ["arena", "position"]
    inlines = [CellInline]

    def save_model(self, request, obj, form, change):
        if not change:
            story_add(story=obj)
            return
        values = {k: form.cleaned_data[k] for k in form.changed_data if k in form.cleaned_data}
        original = Story.objects.get(pk=obj.pk)
        story_update(story=original, **values)

    def save_formset(self, request, form, formset, change):
        if formset.model is not Cell:
            return super().save_formset(request, form, formset, change)
        changed = [f for f in formset.forms if f.instance.pk and f.has_changed()]
        with transaction.atomic():
            for cell_form in changed:
                save_cell_form(cell_form, request.user)
        # what the admin's change message reads (formset.save() is not called)
        formset.new_objects, formset.deleted_objects = [], []
        formset.changed_objects = [(f.instance, f.changed_data) for f in changed]
        formset.save_m2m = lambda: None


@admin.register(CellChange)
class CellChangeAdmin(admin.ModelAdmin):
    list_display = [
        "changed_at",
        "cell",
        "kind",
        "old_verdict",
        "new_verdict",
        "changed_by",
        "note",
    ]
    list_filter = ["kind", "cell__story__arena"]
    search_fields = ["note", "cell__story__text", "cell__product__name"]
    list_select_related = ["cell", "changed_by"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False  # the record is append-only
