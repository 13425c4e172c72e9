from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpResponseRedirect

from stories.forms import CellForm, StoryForm
from stories.models import Cell, CellChange, Evidence, Story
from stories.services import (
    EditConflict,
    cell_edit,
    story_add,
    story_retire,
    story_update,
)


def save_cell_form(form, user) -> list[str]:
    """Route an admin edit of a cell through the services: only the fields the editor changed,
    checked against the version they read (validation, record, recomputation)."""
    return cell_edit(
        cell=form.instance,
        changes=form.changes(),
        base_version=form.base_version(),
        base=form.base(),
        by=user,
        note=f"Edited in the admin by {user.get_username()}",
    )


class RefusesStaleSaves:
    """A save that a concurrent edit made stale between the form's check and the write (the
    services check again under a row lock) is reported, and the editor goes back to the form."""

    def refuse(self, request, exc: Exception) -> None:
        message = exc.message() if isinstance(exc, EditConflict) else "; ".join(exc.messages)
        self.message_user(request, message, messages.ERROR)
        request._edit_refused = True
        # the admin saves the row and its inlines in one transaction: nothing of it is kept
        if transaction.get_connection().in_atomic_block:
            transaction.set_rollback(True)

    def response_change(self, request, obj):
        if getattr(request, "_edit_refused", False):
            return HttpResponseRedirect(request.get_full_path())
        return super().response_change(request, obj)

    def log_change(self, request, obj, message):
        if getattr(request, "_edit_refused", False):
            return None
        return super().log_change(request, obj, message)


class RetireActions:
    """Stories and products are retired, never deleted: their cells carry flags, decisions and the
    public record. Retired rows are hidden from the pages and the scores."""

    retire_service = None
    actions = ["retire_selected", "restore_selected"]

    def has_delete_permission(self, request, obj=None):
        return False

    def _retire(self, request, queryset, retired: bool) -> None:
        done = sum(
            type(self).retire_service(**{self.opts.model_name: obj}, retired=retired)
            for obj in queryset
        )
        verb = "Retired" if retired else "Restored"
        self.message_user(request, f"{verb} {done} {self.opts.verbose_name_plural}.")

    @admin.action(description="Retire selected (hide from pages and scores, keep the record)")
    def retire_selected(self, request, queryset):
        self._retire(request, queryset, True)

    @admin.action(description="Restore selected retired rows")
    def restore_selected(self, request, queryset):
        self._retire(request, queryset, False)


class EvidenceInline(admin.TabularInline):
    model = Evidence
    extra = 0
    fields = ["position", "source", "quote"]

    def has_change_permission(self, request, obj=None):
        return False  # evidence comes with imports; a correction is a flag or a cell edit

    def has_add_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


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
class CellAdmin(RefusesStaleSaves, admin.ModelAdmin):
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
    fields = [
        "story",
        "product",
        "verdict",
        "proof",
        "quality",
        "rationale",
        "rationale_predates",
        "rationale_rewritten_at",
        "read_version",
    ]
    # the marks follow the writes (saving a new rationale clears "predates"); never typed in
    readonly_fields = ["story", "product", "rationale_predates", "rationale_rewritten_at"]

    @admin.display(description="story", ordering="story__position")
    def story_text(self, obj):
        return obj.story.text[:80]

    def has_add_permission(self, request):
        return False  # cells exist for every product × story; they are created with them

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        try:
            save_cell_form(form, request.user)
        except (EditConflict, ValidationError) as exc:
            self.refuse(request, exc)


class CellInline(admin.TabularInline):
    model = Cell
    form = CellForm
    extra = 0
    can_delete = False
    fields = ["product", "verdict", "proof", "quality", "rationale", "read_version"]
    readonly_fields = ["product"]
    ordering = ["product__position"]

    def has_add_permission(self, request, obj=None):
        return False

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("product")


@admin.register(Story)
class StoryAdmin(RetireActions, RefusesStaleSaves, admin.ModelAdmin):
    form = StoryForm
    retire_service = story_retire
    list_display = [
        "position",
        "text",
        "arena",
        "category",
        "subgroup",
        "persona",
        "weight",
        "weight_published",
        "retired_at",
    ]
    list_display_links = ["text"]
    list_filter = ["arena", "category", "persona", "weight", "weight_published", "retired_at"]
    search_fields = ["text"]
    list_select_related = ["arena", "category", "subgroup", "persona"]
    ordering = ["arena", "position"]
    inlines = [CellInline]

    def get_readonly_fields(self, request, obj=None):
        return ["arena", "retired_at"] if obj else ["retired_at"]

    def save_model(self, request, obj, form, change):
        try:
            if not change:
                story_add(story=obj)
                return
            story_update(
                story=Story.all_objects.get(pk=obj.pk),
                changes=form.changes(),
                base_version=form.base_version(),
                base=form.base(),
            )
        except (EditConflict, ValidationError) as exc:
            self.refuse(request, exc)

    def save_formset(self, request, form, formset, change):
        if formset.model is not Cell:
            return super().save_formset(request, form, formset, change)
        changed = [f for f in formset.forms if f.instance.pk and f.has_changed()]
        if getattr(request, "_edit_refused", False):
            changed = []
        try:
            with transaction.atomic():
                for cell_form in changed:
                    save_cell_form(cell_form, request.user)
        except (EditConflict, ValidationError) as exc:
            self.refuse(request, exc)
            changed = []
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

    def has_delete_permission(self, request, obj=None):
        return False
